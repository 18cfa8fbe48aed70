package api

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// openAPIDoc is the part of api/openapi.json a response is checked
// against.
type openAPIDoc struct {
	Paths map[string]map[string]struct {
		Responses map[string]struct {
			Content map[string]struct {
				Schema map[string]any `json:"schema"`
			} `json:"content"`
		} `json:"responses"`
	} `json:"paths"`
	Components struct {
		Schemas map[string]map[string]any `json:"schemas"`
	} `json:"components"`
}

// conforms reports where a JSON value departs from a schema of the
// document: a property the schema lacks, or a value of another type.
func (d *openAPIDoc) conforms(where string, schema map[string]any, v any) []string {
	if ref, ok := schema["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		s, ok := d.Components.Schemas[name]
		if !ok {
			return []string{where + ": no schema " + name}
		}
		return d.conforms(where, s, v)
	}
	if all, ok := schema["allOf"].([]any); ok {
		var out []string
		for _, s := range all {
			out = append(out, d.conforms(where, s.(map[string]any), v)...)
		}
		return out
	}
	types := map[string]bool{}
	switch t := schema["type"].(type) {
	case string:
		types[t] = true
	case []any:
		for _, x := range t {
			types[x.(string)] = true
		}
	case nil:
		return nil // any value
	}
	var got string
	switch v.(type) {
	case map[string]any:
		got = "object"
	case []any:
		got = "array"
	case string:
		got = "string"
	case float64:
		got = "number"
		if types["integer"] && v.(float64) == float64(int64(v.(float64))) {
			got = "integer"
		}
	case bool:
		got = "boolean"
	}
	if !types[got] {
		return []string{fmt.Sprintf("%s: a %s, the schema says %v", where, got, schema["type"])}
	}
	var out []string
	switch x := v.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		extra, _ := schema["additionalProperties"].(map[string]any)
		for k, val := range x {
			switch {
			case props[k] != nil:
				out = append(out, d.conforms(where+"."+k, props[k].(map[string]any), val)...)
			case extra != nil:
				out = append(out, d.conforms(where+"."+k, extra, val)...)
			case props != nil || schema["title"] != nil:
				out = append(out, where+"."+k+": not in the schema")
			}
		}
	case []any:
		items, _ := schema["items"].(map[string]any)
		for i, val := range x {
			out = append(out, d.conforms(fmt.Sprintf("%s[%d]", where, i), items, val)...)
		}
	}
	return out
}

// TestOpenAPIDescribesRealAnswers: real answers of the server — a ticket
// waiting, a match with its teams and quality, the pools' stats, an
// error — conform to the response schemas the document gives their
// procedures, so a client generated from it reads them.
func TestOpenAPIDescribesRealAnswers(t *testing.T) {
	raw, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc openAPIDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{})
	check := func(path string, r reply) {
		t.Helper()
		if r.body == nil {
			t.Fatalf("%s: no JSON answer: %d %s", path, r.status, r.raw)
		}
		status := "200"
		if r.status != 200 {
			status = "default"
		}
		schema := doc.Paths[path]["post"].Responses[status].Content["application/json"].Schema
		if schema == nil {
			t.Fatalf("%s: the document has no %s JSON response", path, status)
		}
		for _, p := range doc.conforms(path, schema, r.body) {
			t.Error(p)
		}
	}
	first := e.post("CreateTicket", `{"queue":"duel","players":[{"id":"alice","attributes":{"mmr":1500,"roles":["tank"]}}]}`)
	check("/cupid.v1.TicketService/CreateTicket", first)
	e.post("CreateTicket", `{"queue":"duel","players":[{"id":"bob","attributes":{"mmr":1510}}]}`)
	e.wait(time.Millisecond)
	id := first.body["ticket"].(map[string]any)["id"].(string)
	matched := e.post("GetTicket", `{"id":"`+id+`"}`)
	if matched.body["ticket"].(map[string]any)["match"] == nil {
		t.Fatalf("the ticket is not matched: %s", matched.raw)
	}
	check("/cupid.v1.TicketService/GetTicket", matched)
	check("/cupid.v1.TicketService/QueueStats", e.post("QueueStats", `{}`))
	check("/cupid.v1.TicketService/ListTickets", e.post("ListTickets", `{"queue":"duel"}`))
	check("/cupid.v1.TicketService/GetTicket", e.post("GetTicket", `{"id":"nope"}`))
	check("/cupid.v1.MatchService/ListMatches", e.postTo("/cupid.v1.MatchService/ListMatches", "application/json", strings.NewReader(`{"queue":"duel"}`)))
}
