package api

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/golang-jwt/jwt/v5"

	cupid "github.com/cupid-match/cupid"
)

// The dashboard's data endpoints as the server mounts them: open without
// auth, admin keys only with auth, its pages open either way, and bad input
// answered with a clear error that names the field and changes nothing.

// brokenRules has a typo at line 5, column 38.
const brokenRules = "{\n  \"alliance\": {\"min_number\": 2, \"max_number\": 2,\n    \"player_min_number\": 1, \"player_max_number\": 1},\n  \"matching_rule\": [\n    {\"attribute\": \"mmr\", \"criteria\": \"distanse\", \"reference\": 100}\n  ]\n}"

// call sends a request to the dashboard with an optional bearer key.
func (e *env) call(method, path, key, body string) reply {
	e.t.Helper()
	req, err := http.NewRequest(method, e.url+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	return e.do(req)
}

func TestDashboardPagesAreServed(t *testing.T) {
	for _, auth := range []bool{false, true} {
		e := newEnv(t, envOptions{options: func(o *Options) {
			if auth {
				o.Auth = testAuth(t, ServerKey{Name: "ops", Hash: HashKey("admin-key"), Scopes: []Scope{ScopeAdmin}})
			}
		}})
		for _, p := range []string{"/dashboard/", "/dashboard/app.js", "/dashboard/style.css", "/dashboard/pages/rulesets.js"} {
			r := e.call(http.MethodGet, p, "", "")
			if r.status != http.StatusOK || len(r.raw) < 100 {
				t.Fatalf("auth %v: GET %s: status %d, %d bytes", auth, p, r.status, len(r.raw))
			}
		}
		if r := e.call(http.MethodGet, "/dashboard/nope.js", "", ""); r.status != http.StatusNotFound {
			t.Fatalf("a missing file: status %d", r.status)
		}
		if r := e.call(http.MethodPost, "/dashboard/", "", "{}"); r.status != http.StatusMethodNotAllowed {
			t.Fatalf("POST to a page: status %d", r.status)
		}
	}
}

func TestDashboardNeedsAnAdminKeyWhenAuthIsOn(t *testing.T) {
	e := newEnv(t, envOptions{options: func(o *Options) {
		o.Auth = testAuth(t,
			ServerKey{Name: "ops", Hash: HashKey("admin-key"), Scopes: []Scope{ScopeAdmin}},
			ServerKey{Name: "game", Hash: HashKey("tickets-key"), Scopes: []Scope{ScopeTickets, ScopeRulesets}})
	}})
	for _, c := range []struct {
		name, key string
		code      connect.Code
		mention   string
	}{
		{"no key", "", connect.CodeUnauthenticated, "server key"},
		{"an unknown key", "guess", connect.CodeUnauthenticated, "not a known server key"},
		{"a key without admin", "tickets-key", connect.CodePermissionDenied, "admin scope"},
		{"a player token", sign(t, jwt.SigningMethodHS256, testSecret, claims(nil)), connect.CodePermissionDenied, "admin scope"},
	} {
		for _, p := range []string{"overview", "stream?page=queues", "tickets?player=ann", "rulesets/duel"} {
			e.call(http.MethodGet, "/dashboard/api/"+p, c.key, "").refused(t, c.code, c.mention)
		}
		e.call(http.MethodPut, "/dashboard/api/rulesets/duel", c.key, `{"ruleset": "{}"}`).refused(t, c.code, c.mention)
	}
	// Nothing was put by the refused calls.
	if _, v, _ := e.svc.Rulesets().Ruleset("duel"); v != 1 {
		t.Fatalf("the ruleset is at version %d after refused puts", v)
	}
	r := e.call(http.MethodGet, "/dashboard/api/overview", "admin-key", "").ok(t)
	if r.path("auth") != true || len(r.list("queues")) != 2 {
		t.Fatalf("overview %s", r.raw)
	}
}

func TestDashboardOpenWithoutAuth(t *testing.T) {
	e := newEnv(t, envOptions{})
	r := e.call(http.MethodGet, "/dashboard/api/overview", "", "").ok(t)
	if r.path("auth") != false || r.str("queues.0") != "duel" {
		t.Fatalf("overview %s", r.raw)
	}
}

func TestDashboardRefusesBadInput(t *testing.T) {
	e := newEnv(t, envOptions{})
	big := `{"ruleset": "` + strings.Repeat("x", 1<<20) + `"}`
	for _, c := range []struct {
		name, method, path, body string
		code                     connect.Code
		mention                  []string
	}{
		{"search without a term", "GET", "tickets", "", connect.CodeInvalidArgument, []string{"id:", "player id"}},
		{"an unknown ticket", "GET", "tickets?id=nope", "", connect.CodeNotFound, []string{"nope"}},
		{"a ticket id too long", "GET", "tickets?id=" + strings.Repeat("x", 300), "", connect.CodeInvalidArgument, []string{"256"}},
		{"an unknown queue's ruleset", "GET", "rulesets/nope", "", connect.CodeNotFound, []string{"nope"}},
		{"check without a body", "POST", "check", "", connect.CodeInvalidArgument, []string{"body"}},
		{"check with an unknown field", "POST", "check", `{"rules": "{}"}`, connect.CodeInvalidArgument, []string{"rules"}},
		{"a body too large", "POST", "check", big, connect.CodeResourceExhausted, []string{"bytes"}},
		{"put to an unknown queue", "PUT", "rulesets/nope", `{"ruleset": "{}"}`, connect.CodeNotFound, []string{"nope"}},
		{"put at a stale version", "PUT", "rulesets/duel", `{"ruleset": ` + jsonString(duelRules) + `, "expected_version": 7}`, connect.CodeFailedPrecondition, []string{"version 1, not 7"}},
		{"try without tickets", "POST", "try", `{"ruleset": ` + jsonString(duelRules) + `}`, connect.CodeInvalidArgument, []string{"tickets:"}},
		{"try too long", "POST", "try", `{"ruleset": ` + jsonString(duelRules) + `, "tickets": [{"id": "a"}], "until": 99999}`, connect.CodeInvalidArgument, []string{"until:"}},
		{"try a late ticket", "POST", "try", `{"ruleset": ` + jsonString(duelRules) + `, "tickets": [{"id": "a", "at": -1}]}`, connect.CodeInvalidArgument, []string{"tickets[0].at"}},
		{"a stream of no page", "GET", "stream", "", connect.CodeInvalidArgument, []string{"page:"}},
		{"a stream of an unknown page", "GET", "stream?page=bogus", "", connect.CodeInvalidArgument, []string{"bogus"}},
		{"a stream of an unknown queue", "GET", "stream?page=matches&queue=nope", "", connect.CodeNotFound, []string{"nope"}},
		{"events on a server without them", "GET", "stream?page=events", "", connect.CodeNotFound, []string{"speed-dating"}},
		{"an unknown endpoint", "GET", "nope", "", connect.CodeNotFound, []string{"nope"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e.call(c.method, "/dashboard/api/"+c.path, "", c.body).refused(t, c.code, c.mention...)
		})
	}
	if _, v, _ := e.svc.Rulesets().Ruleset("duel"); v != 1 {
		t.Fatalf("the ruleset is at version %d after refused puts", v)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// The editor's calls: a check marks each problem at its line and column, a
// put of a broken ruleset is refused with the same problems and changes
// nothing, a good one goes live and joins the history, and a try runs the
// engine over sample tickets.
func TestDashboardRulesetEditor(t *testing.T) {
	e := newEnv(t, envOptions{})
	r := e.call(http.MethodPost, "/dashboard/api/check", "", `{"ruleset": `+jsonString(brokenRules)+`}`).ok(t)
	if r.path("valid") != false || r.path("problems.0.line") != 5.0 || r.path("problems.0.column") != 38.0 || !strings.Contains(r.str("problems.0.message"), "distanse") {
		t.Fatalf("check: %s", r.raw)
	}
	r = e.call(http.MethodPut, "/dashboard/api/rulesets/duel", "", `{"ruleset": `+jsonString(brokenRules)+`}`)
	r.refused(t, connect.CodeInvalidArgument, "1 problem", "nothing was changed")
	if r.path("problems.0.line") != 5.0 {
		t.Fatalf("put: %s", r.raw)
	}
	fixed := strings.Replace(brokenRules, "distanse", "distance", 1)
	r = e.call(http.MethodPost, "/dashboard/api/check", "", `{"ruleset": `+jsonString(fixed)+`}`).ok(t)
	if r.path("valid") != true || len(r.list("problems")) != 0 {
		t.Fatalf("check of the fixed ruleset: %s", r.raw)
	}
	r = e.call(http.MethodPut, "/dashboard/api/rulesets/duel", "", `{"ruleset": `+jsonString(fixed)+`, "expected_version": 1}`).ok(t)
	if r.path("version") != 2.0 {
		t.Fatalf("put: %s", r.raw)
	}
	r = e.call(http.MethodGet, "/dashboard/api/rulesets/duel", "", "").ok(t)
	if r.path("version") != 2.0 || len(r.list("history")) != 2 || r.str("history.1.via") != "editor" || r.str("ruleset") != fixed {
		t.Fatalf("ruleset: %s", r.raw)
	}
	r = e.call(http.MethodPost, "/dashboard/api/try", "", `{"ruleset": `+jsonString(fixed)+`, "tickets": [
		{"id": "ann", "at": 0, "attributes": {"mmr": 1500}}, {"id": "bob", "at": 2, "attributes": {"mmr": 1550}},
		{"id": "cid", "at": 3, "attributes": {"mmr": 2900}}]}`).ok(t)
	if len(r.list("report.matches")) != 1 || r.str("report.waiting.0.id") != "cid" || !strings.Contains(r.str("text"), "ann") {
		t.Fatalf("try: %s", r.raw)
	}
	r = e.call(http.MethodPost, "/dashboard/api/try", "", `{"ruleset": `+jsonString(brokenRules)+`, "tickets": [{"id": "a"}]}`)
	r.refused(t, connect.CodeInvalidArgument, "problem")
	if r.path("problems.0.line") != 5.0 {
		t.Fatalf("try of a broken ruleset: %s", r.raw)
	}
}

// A ticket is found by id and by player, with why it waits in words; the
// queues stream sends a snapshot at once and the next when it changed.
func TestDashboardTicketsAndStream(t *testing.T) {
	e := newEnv(t, envOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.url+"/dashboard/api/stream?page=queues", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: status %d, %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	lines := bufio.NewScanner(res.Body)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	// next returns the duel queue's waiting count of the next snapshot.
	next := func() float64 {
		t.Helper()
		for lines.Scan() {
			data, ok := strings.CutPrefix(lines.Text(), "data: ")
			if !ok {
				continue
			}
			var snap struct {
				Queues []struct {
					Queue   string  `json:"queue"`
					Waiting float64 `json:"waiting"`
				} `json:"queues"`
			}
			if err := json.Unmarshal([]byte(data), &snap); err != nil {
				t.Fatal(err)
			}
			return snap.Queues[0].Waiting
		}
		t.Fatalf("the stream ended: %v", lines.Err())
		return 0
	}
	if w := next(); w != 0 {
		t.Fatalf("first snapshot: %v waiting", w)
	}
	id := e.createJSON("ann", 1500)
	if w := next(); w != 1 {
		t.Fatalf("after a ticket: %v waiting", w)
	}

	for _, q := range []string{"id=" + id, "player=ann"} {
		r := e.call(http.MethodGet, "/dashboard/api/tickets?"+q, "", "").ok(t)
		if r.str("tickets.0.id") != id || r.str("tickets.0.state") != "waiting" || len(r.list("tickets.0.why")) < 2 {
			t.Fatalf("tickets?%s: %s", q, r.raw)
		}
		// Attributes as the API takes and gives them, not as the
		// server keeps them ({"kind":1,"number":1500}).
		if !strings.Contains(string(r.raw), `"players":[{"id":"ann","attributes":{"mmr":1500}}]`) || strings.Contains(string(r.raw), `"kind"`) {
			t.Fatalf("tickets?%s players: %s", q, r.raw)
		}
	}
	if r := e.call(http.MethodGet, "/dashboard/api/tickets?player=nobody", "", "").ok(t); len(r.list("tickets")) != 0 {
		t.Fatalf("tickets of nobody: %s", r.raw)
	}
}

// A stream lives past the server's write timeout for calls: its second
// snapshot comes a second after the first, long after 50 ms.
func TestDashboardStreamOutlivesTheWriteTimeout(t *testing.T) {
	e := newEnv(t, envOptions{options: func(o *Options) { o.Limits.WriteTimeout = 50 * time.Millisecond }})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.url+"/dashboard/api/stream?page=queues", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	lines := bufio.NewScanner(res.Body)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	snapshots := 0
	for snapshots < 2 && lines.Scan() {
		if !strings.HasPrefix(lines.Text(), "data: ") {
			continue
		}
		if snapshots++; snapshots == 1 {
			if _, _, err := e.svc.CreateTicket(ctx, &cupid.Ticket{Key: cupid.QueueKey{Queue: "duel"}, Players: []cupid.Player{{ID: "ann",
				Attributes: cupid.NewAttributes(map[string]cupid.Value{"mmr": cupid.Number(1500)})}}}, false); err != nil {
				t.Fatal(err)
			}
		}
	}
	if snapshots != 2 {
		t.Fatalf("the stream ended after %d snapshots: %v", snapshots, lines.Err())
	}
}
