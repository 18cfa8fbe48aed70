# Regenerate the API code from proto/ (offline once the module cache holds
# the tools pinned in tools/go.mod).
.PHONY: generate test
generate:
	go run -modfile=tools/go.mod github.com/bufbuild/buf/cmd/buf generate
	go test ./internal/openapi -run TestCommittedDocumentIsCurrent -update

test:
	go test ./...
