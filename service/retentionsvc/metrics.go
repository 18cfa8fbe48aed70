package retentionsvc

import "github.com/prometheus/client_golang/prometheus"

type metrics struct {
	passes  *prometheus.CounterVec // by outcome (ok, failed)
	removed *prometheus.CounterVec // by kind
	related *prometheus.CounterVec // by kind
	rows    *prometheus.GaugeVec   // by kind
	bytes   *prometheus.GaugeVec   // by kind
	oldest  *prometheus.GaugeVec   // by kind, unix seconds
	last    prometheus.Gauge       // the last pass's start, unix seconds

	exportedRows  *prometheus.CounterVec // by kind
	exportedBytes *prometheus.CounterVec // by kind
	exportErrors  *prometheus.CounterVec // by kind
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		passes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cupid_retention_passes_total",
			Help: "Retention passes over every kind, by outcome (ok, failed)."}, []string{"outcome"}),
		removed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cupid_retention_removed_rows_total",
			Help: "Rows retention removed, by kind (tickets, matches, rating_history, rating_results, encounters)."}, []string{"kind"}),
		related: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cupid_retention_removed_related_rows_total",
			Help: "Rows removed with them (ticket events, match log entries, ready-check answers), by kind."}, []string{"kind"}),
		rows: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "cupid_store_rows",
			Help: "Rows the store holds, by kind, after the last retention pass."}, []string{"kind"}),
		bytes: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "cupid_store_bytes",
			Help: "Bytes of the kind's tables and indexes, after the last retention pass."}, []string{"kind"}),
		oldest: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "cupid_store_oldest_seconds",
			Help: "When the oldest kept row of the kind was created (unix seconds), after the last retention pass."}, []string{"kind"}),
		last: prometheus.NewGauge(prometheus.GaugeOpts{Name: "cupid_retention_last_pass_seconds",
			Help: "When the last retention pass on this node started (unix seconds)."}),
		exportedRows: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cupid_retention_exported_rows_total",
			Help: "Rows retention wrote to the export (retention.export) before deleting them, by kind."}, []string{"kind"}),
		exportedBytes: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cupid_retention_exported_bytes_total",
			Help: "Bytes of JSON lines retention wrote to the export, by kind."}, []string{"kind"}),
		exportErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cupid_retention_export_errors_total",
			Help: "Writes to the export that failed, by kind: each stopped the kind's pass and deleted nothing of its batch."}, []string{"kind"}),
	}
	if reg != nil {
		reg.MustRegister(m.passes, m.removed, m.related, m.rows, m.bytes, m.oldest, m.last, m.exportedRows, m.exportedBytes, m.exportErrors)
	}
	return m
}

func (m *metrics) pass(rep Report, err error) {
	outcome := "ok"
	if err != nil {
		outcome = "failed"
	}
	m.passes.WithLabelValues(outcome).Inc()
	m.last.Set(float64(rep.At.UnixNano()) / 1e9)
	for _, k := range rep.Kinds {
		m.removed.WithLabelValues(string(k.Kind)).Add(float64(k.Removed))
		m.related.WithLabelValues(string(k.Kind)).Add(float64(k.Related))
	}
	for _, r := range rep.Retained {
		kind := string(r.Kind)
		m.rows.WithLabelValues(kind).Set(float64(r.Rows))
		m.bytes.WithLabelValues(kind).Set(float64(r.Bytes))
		if r.Oldest.IsZero() {
			m.oldest.DeleteLabelValues(kind)
		} else {
			m.oldest.WithLabelValues(kind).Set(float64(r.Oldest.UnixNano()) / 1e9)
		}
	}
}
