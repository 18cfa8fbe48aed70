// Package openapi describes Cupid's JSON API (the Connect protocol) as an
// OpenAPI 3.1 document, generated from the compiled proto descriptors in
// gen/ so that it says what the server really accepts and answers. The
// document is committed as api/openapi.json, which the server serves at
// /openapi.json; a test keeps the two equal.
//
// It is written here rather than taken from a protoc plugin so that the
// check that the committed file is current needs no buf run, only the
// descriptors every build already has.
package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	_ "github.com/cupid-match/cupid/gen/cupid/v1" // registers the cupid.v1 files
)

// Package is the proto package the API is in.
const Package = "cupid.v1"

// obj is a JSON object; encoding/json sorts its keys, so the document is
// the same bytes every time.
type obj = map[string]any

// Generate returns the OpenAPI document of every service of Package, as
// indented JSON ending in a newline.
func Generate() ([]byte, error) {
	var files []protoreflect.FileDescriptor
	protoregistry.GlobalFiles.RangeFilesByPackage(Package, func(fd protoreflect.FileDescriptor) bool {
		files = append(files, fd)
		return true
	})
	if len(files) == 0 {
		return nil, fmt.Errorf("no files of package %s are registered", Package)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path() < files[j].Path() })
	g := &generator{schemas: obj{}}
	paths := obj{}
	var tags []any
	for _, fd := range files {
		for i := 0; i < fd.Services().Len(); i++ {
			sd := fd.Services().Get(i)
			tags = append(tags, obj{"name": string(sd.Name()), "description": "cupid.v1." + string(sd.Name()) + " (" + fd.Path() + ")"})
			for j := 0; j < sd.Methods().Len(); j++ {
				md := sd.Methods().Get(j)
				paths["/"+string(sd.FullName())+"/"+string(md.Name())] = g.path(sd, md)
			}
		}
	}
	g.schemas["connect.error"] = obj{
		"type":        "object",
		"description": "A Connect error: the code (invalid_argument, not_found, unauthenticated …) and a message naming the field at fault.",
		"properties": obj{
			"code":    obj{"type": "string", "examples": []any{"invalid_argument"}},
			"message": obj{"type": "string"},
			"details": obj{"type": "array", "items": obj{"type": "object"}},
		},
	}
	doc := obj{
		"openapi": "3.1.0",
		"info": obj{
			"title":   "Cupid",
			"version": Package,
			"description": "Cupid's API over the Connect protocol's JSON: POST a JSON request to /<service>/<method> " +
				"with Content-Type application/json. The same procedures speak gRPC and gRPC-Web on the same port, and " +
				"gRPC server reflection lists them. Server streams (Watch…) use Connect's enveloped stream " +
				"(application/connect+json) and are easier from a Connect or gRPC client, or the WebSockets. " +
				"Generated from the proto files by internal/openapi.",
			"license": obj{"name": "See the repository's LICENSE"},
		},
		"servers":    []any{obj{"url": "http://127.0.0.1:7070"}},
		"tags":       tags,
		"security":   []any{obj{"bearer": []any{}}},
		"paths":      paths,
		"components": obj{"schemas": g.schemas, "securitySchemes": obj{"bearer": obj{"type": "http", "scheme": "bearer", "description": "A server key (cupid_sk_…) or a player token (a JWT); docs/security.md. Not needed on a server without auth (loopback only)."}}},
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

type generator struct {
	schemas obj
}

// path is one procedure: a POST of the request message, answered with
// the response message or a Connect error.
func (g *generator) path(sd protoreflect.ServiceDescriptor, md protoreflect.MethodDescriptor) obj {
	in, out := g.ref(md.Input()), g.ref(md.Output())
	reqType, resType := "application/json", "application/json"
	summary := string(sd.Name()) + "." + string(md.Name())
	desc := ""
	switch {
	case md.IsStreamingClient():
		desc = "A client stream: gRPC or Connect only."
	case md.IsStreamingServer():
		reqType, resType = "application/connect+json", "application/connect+json"
		desc = "A server stream: the request and each response are Connect envelopes (a flag byte, a 4-byte big-endian length, the JSON message); the stream ends with an end-of-stream envelope holding the error, if any."
	}
	errors := obj{"description": "A Connect error", "content": obj{"application/json": obj{"schema": obj{"$ref": "#/components/schemas/connect.error"}}}}
	op := obj{
		"operationId": string(sd.Name()) + "_" + string(md.Name()),
		"summary":     summary,
		"tags":        []any{string(sd.Name())},
		"requestBody": obj{"required": true, "content": obj{reqType: obj{"schema": in}}},
		"responses": obj{
			"200":     obj{"description": string(md.Output().Name()), "content": obj{resType: obj{"schema": out}}},
			"default": errors,
		},
	}
	if desc != "" {
		op["description"] = desc
	}
	if o, ok := md.Options().(*descriptorpb.MethodOptions); ok && o.GetIdempotencyLevel() == descriptorpb.MethodOptions_NO_SIDE_EFFECTS && !md.IsStreamingServer() {
		op["description"] = "A read: also GET /" + string(sd.FullName()) + "/" + string(md.Name()) + "?encoding=json&message=<the request, URL-encoded JSON>, which caches can keep."
	}
	return obj{"post": op}
}

// ref returns a reference to a message's schema, adding the schema (and
// those it refers to) on first use. Well-known types are written inline as
// their JSON form.
func (g *generator) ref(md protoreflect.MessageDescriptor) obj {
	if s, ok := wellKnown(md.FullName()); ok {
		return s
	}
	name := string(md.FullName())
	if _, done := g.schemas[name]; !done {
		g.schemas[name] = obj{} // placeholder: a message may refer to itself
		g.schemas[name] = g.message(md)
	}
	return obj{"$ref": "#/components/schemas/" + name}
}

// message is a message's schema: one property per field, by its JSON
// name (the server also accepts the proto name).
func (g *generator) message(md protoreflect.MessageDescriptor) obj {
	props := obj{}
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		s := g.field(fd)
		if oo := fd.ContainingOneof(); oo != nil && !oo.IsSynthetic() {
			var others []string
			for j := 0; j < oo.Fields().Len(); j++ {
				if f := oo.Fields().Get(j); f != fd {
					others = append(others, f.JSONName())
				}
			}
			s = withDescription(s, "One of "+string(oo.Name())+": not with "+strings.Join(others, ", ")+".")
		}
		props[fd.JSONName()] = s
	}
	out := obj{"type": "object", "title": string(md.Name()), "properties": props}
	return out
}

// field is a field's schema, repeated and map fields included.
func (g *generator) field(fd protoreflect.FieldDescriptor) obj {
	switch {
	case fd.IsMap():
		return obj{"type": "object", "additionalProperties": g.single(fd.MapValue())}
	case fd.IsList():
		return obj{"type": "array", "items": g.single(fd)}
	}
	return g.single(fd)
}

// single is the schema of one value of a field, as protojson writes it.
func (g *generator) single(fd protoreflect.FieldDescriptor) obj {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return obj{"type": "boolean"}
	case protoreflect.StringKind:
		return obj{"type": "string"}
	case protoreflect.BytesKind:
		return obj{"type": "string", "format": "byte"}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return obj{"type": "integer", "format": "int32"}
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return obj{"type": "integer", "format": "int32", "minimum": 0}
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		// protojson writes 64-bit integers as strings (JavaScript's
		// numbers would lose digits) and reads either.
		return obj{"type": []any{"string", "integer"}, "format": "int64"}
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return obj{"type": []any{"string", "integer"}, "format": "uint64"}
	case protoreflect.FloatKind:
		return obj{"type": "number", "format": "float"}
	case protoreflect.DoubleKind:
		return obj{"type": "number", "format": "double"}
	case protoreflect.EnumKind:
		var names []any
		values := fd.Enum().Values()
		for i := 0; i < values.Len(); i++ {
			names = append(names, string(values.Get(i).Name()))
		}
		return obj{"type": "string", "enum": names, "title": string(fd.Enum().Name())}
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return g.ref(fd.Message())
	}
	return obj{}
}

// wellKnown is the JSON form of the well-known types the API uses.
func wellKnown(name protoreflect.FullName) (obj, bool) {
	switch name {
	case "google.protobuf.Timestamp":
		return obj{"type": "string", "format": "date-time", "description": "RFC 3339, in UTC"}, true
	case "google.protobuf.Duration":
		return obj{"type": "string", "pattern": `^-?[0-9]+(\.[0-9]+)?s$`, "description": "seconds with an s: \"1.5s\""}, true
	case "google.protobuf.Value":
		return obj{"description": "any JSON value"}, true
	case "google.protobuf.ListValue":
		return obj{"type": "array"}, true
	case "google.protobuf.Struct":
		return obj{"type": "object"}, true
	case "google.protobuf.Empty":
		return obj{"type": "object"}, true
	}
	return nil, false
}

func withDescription(s obj, d string) obj {
	if _, isRef := s["$ref"]; isRef {
		// A $ref's siblings are allowed in 3.1, but keep the reference
		// whole under allOf for older readers.
		return obj{"allOf": []any{s}, "description": d}
	}
	out := obj{}
	for k, v := range s {
		out[k] = v
	}
	out["description"] = d
	return out
}
