package openapi

import (
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

var update = flag.Bool("update", false, "rewrite api/openapi.json from the descriptors")

const committed = "../../api/openapi.json"

// TestCommittedDocumentIsCurrent: api/openapi.json is what Generate makes
// from today's protos, so it cannot rot (go test ./internal/openapi
// -update rewrites it after a proto change).
func TestCommittedDocumentIsCurrent(t *testing.T) {
	got, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(committed, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("%s is not what the protos make today: run go test ./internal/openapi -update", committed)
	}
}

// TestEveryProcedureAndField: every method of every service is a path,
// and every field of its request is a property of the request's schema
// under its JSON name, with the type protojson uses.
func TestEveryProcedureAndField(t *testing.T) {
	raw, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		OpenAPI    string `json:"openapi"`
		Paths      map[string]map[string]json.RawMessage
		Components struct {
			Schemas map[string]struct {
				Properties map[string]map[string]any
			}
		}
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("openapi %q", doc.OpenAPI)
	}
	methods := 0
	protoregistry.GlobalFiles.RangeFilesByPackage(Package, func(fd protoreflect.FileDescriptor) bool {
		for i := 0; i < fd.Services().Len(); i++ {
			sd := fd.Services().Get(i)
			for j := 0; j < sd.Methods().Len(); j++ {
				md := sd.Methods().Get(j)
				methods++
				p := "/" + string(sd.FullName()) + "/" + string(md.Name())
				if _, ok := doc.Paths[p]["post"]; !ok {
					t.Errorf("%s: no POST in the document", p)
					continue
				}
				schema, ok := doc.Components.Schemas[string(md.Input().FullName())]
				if !ok {
					t.Errorf("%s: no schema %s", p, md.Input().FullName())
					continue
				}
				for k := 0; k < md.Input().Fields().Len(); k++ {
					f := md.Input().Fields().Get(k)
					if _, ok := schema.Properties[f.JSONName()]; !ok {
						t.Errorf("%s: field %s missing from %s", p, f.JSONName(), md.Input().FullName())
					}
				}
			}
		}
		return true
	})
	if methods < 50 || len(doc.Paths) != methods {
		t.Fatalf("%d paths for %d methods", len(doc.Paths), methods)
	}
}

// TestTypes: a few fields whose JSON form differs from the proto type.
func TestTypes(t *testing.T) {
	raw, _ := Generate()
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]map[string]any
			}
		}
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		schema, field, key string
		want               any
	}{
		{"cupid.v1.WatchTicketRequest", "afterSeq", "format", "int64"},  // int64: a string or a number
		{"cupid.v1.Ticket", "createdAt", "format", "date-time"},         // Timestamp: RFC 3339
		{"cupid.v1.Ticket", "state", "title", "TicketState"},            // enum: its names
		{"cupid.v1.CreateTicketRequest", "players", "type", "array"},    // repeated
		{"cupid.v1.CreateTicketRequest", "requestId", "type", "string"}, // JSON name, lowerCamel
	} {
		s, ok := doc.Components.Schemas[c.schema]
		if !ok {
			t.Errorf("no schema %s", c.schema)
			continue
		}
		if got := s.Properties[c.field][c.key]; got != c.want {
			t.Errorf("%s.%s %s = %v, want %v", c.schema, c.field, c.key, got, c.want)
		}
	}
}
