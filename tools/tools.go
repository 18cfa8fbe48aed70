//go:build tools

// Package tools pins the code generators in their own module, so the main
// module's dependency graph stays small and `buf generate` runs offline once
// the module cache is filled.
package tools

import (
	_ "connectrpc.com/connect/cmd/protoc-gen-connect-go"
	_ "github.com/bufbuild/buf/cmd/buf"
	_ "google.golang.org/protobuf/cmd/protoc-gen-go"
)
