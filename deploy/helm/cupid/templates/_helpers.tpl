{{- define "cupid.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "cupid.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "cupid.labels" -}}
{{ include "cupid.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* The Secret holding the PostgreSQL URL, and its key. */}}
{{- define "cupid.postgresSecret" -}}
{{- if .Values.postgres.existingSecret -}}{{ .Values.postgres.existingSecret }}{{- else -}}{{ include "cupid.fullname" . }}-postgres{{- end -}}
{{- end -}}
{{- define "cupid.postgresSecretKey" -}}
{{- if .Values.postgres.existingSecret -}}{{ .Values.postgres.existingSecretKey }}{{- else -}}url{{- end -}}
{{- end -}}

{{/* The Secret holding server-keys.yaml. */}}
{{- define "cupid.keysSecret" -}}
{{- if .Values.serverKeysSecret -}}{{ .Values.serverKeysSecret }}{{- else -}}{{ include "cupid.fullname" . }}-server-keys{{- end -}}
{{- end -}}

{{/* What the chart refuses to start without. */}}
{{- define "cupid.validate" -}}
{{- if not (or .Values.postgres.url .Values.postgres.existingSecret) -}}
{{- fail "postgres.url or postgres.existingSecret is required: the nodes share one PostgreSQL database" -}}
{{- end -}}
{{- if not (or .Values.serverKeys .Values.serverKeysSecret) -}}
{{- fail "serverKeys or serverKeysSecret is required: every call needs a server key (cupid key new makes one); the chart does not start an open server" -}}
{{- end -}}
{{- if and .Values.config (regexMatch "(?m)^auth:" .Values.config) -}}
{{- fail "config must not have an auth section: the server keys come from serverKeys or serverKeysSecret" -}}
{{- end -}}
{{- end -}}
