package api

import (
	_ "embed"
	"net/http"
)

// openAPI is the OpenAPI description of the JSON API, generated from the
// protos by internal/openapi (whose test keeps this file current). It is
// served at /openapi.json without credentials: it describes the public
// API of an open-source server and holds nothing of any caller.
//
//go:embed openapi.json
var openAPI []byte

func serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Write(openAPI)
}
