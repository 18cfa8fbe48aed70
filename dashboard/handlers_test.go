package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// The data endpoints' handlers as docs/dashboard.md lists them, over the
// real services: each answers with what the page reads, and bad input is
// answered 400 naming the parameter or field (never 500), changing
// nothing.

// answer is an HTTP answer with its JSON body.
type answer struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

func (f *fixture) do(t *testing.T, method, path, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, f.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := answer{status: res.StatusCode, header: res.Header, raw: string(b)}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(b, &a.body); err != nil {
			t.Fatalf("%s %s: %q is not JSON: %v", method, path, b, err)
		}
	}
	return a
}

// refused fails unless the answer is an error of status and code whose
// field is field and whose message starts with it.
func (a answer) refused(t *testing.T, status int, code, field string) {
	t.Helper()
	if a.status != status || a.body["code"] != code {
		t.Fatalf("status %d %s, want %d %s", a.status, a.raw, status, code)
	}
	if f, _ := a.body["field"].(string); f != field {
		t.Fatalf("field %q, want %q: %s", f, field, a.raw)
	}
	if msg, _ := a.body["message"].(string); field != "" && !strings.HasPrefix(msg, field+": ") {
		t.Fatalf("message %q does not start with the field %s", msg, field)
	}
}

func (a answer) ok(t *testing.T) answer {
	t.Helper()
	if a.status != http.StatusOK {
		t.Fatalf("status %d, want 200: %s", a.status, a.raw)
	}
	return a
}

func (f *fixture) queue(t *testing.T, player string, mmr float64) *cupid.Ticket {
	t.Helper()
	tk, _, err := f.tickets.CreateTicket(context.Background(), &cupid.Ticket{Key: cupid.QueueKey{Queue: "duel"},
		Players: []cupid.Player{{ID: player, Attributes: cupid.NewAttributes(map[string]cupid.Value{"mmr": cupid.Number(mmr)})}}}, false)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func TestAssets(t *testing.T) {
	srv := httptest.NewServer(Assets())
	defer srv.Close()
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, c := range []struct {
		method, path string
		status       int
		header, want string
	}{
		{"GET", "/dashboard", http.StatusMovedPermanently, "Location", Prefix},
		{"GET", "/dashboard/", http.StatusOK, "Content-Security-Policy", "frame-ancestors 'none'"},
		{"HEAD", "/dashboard/app.js", http.StatusOK, "X-Content-Type-Options", "nosniff"},
		{"GET", "/dashboard/style.css", http.StatusOK, "Referrer-Policy", "no-referrer"},
		{"POST", "/dashboard/", http.StatusMethodNotAllowed, "Allow", "GET, HEAD"},
		{"DELETE", "/dashboard/app.js", http.StatusMethodNotAllowed, "Allow", "GET, HEAD"},
		{"GET", "/dashboard/nope.js", http.StatusNotFound, "", ""},
	} {
		req, _ := http.NewRequest(c.method, srv.URL+c.path, nil)
		res, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != c.status || (c.header != "" && !strings.Contains(res.Header.Get(c.header), c.want)) {
			t.Errorf("%s %s: %d %s=%q, want %d with %q", c.method, c.path, res.StatusCode, c.header, res.Header.Get(c.header), c.status, c.want)
		}
	}
	for path, want := range map[string]bool{
		"/dashboard": true, "/dashboard/": true, "/dashboard/pages/rulesets.js": true,
		"/dashboard/api/overview": false, "/dashboard/api/": false, "/dashboardx": false, "/v1/tickets": false,
	} {
		if got := IsAsset(path); got != want {
			t.Errorf("IsAsset(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestOverviewAndAuthorize(t *testing.T) {
	f := newFixture(t, Options{AuthOn: true, Interval: 2 * time.Second})
	a := f.do(t, "GET", APIPrefix+"overview", "").ok(t)
	b, _ := json.Marshal(a.body)
	var got struct {
		Queues   []string `json:"queues"`
		Pairing  bool     `json:"pairing"`
		Finders  []string `json:"finders"`
		Auth     bool     `json:"auth"`
		Interval float64  `json:"interval"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got.Queues, ",") != "duel" || !got.Pairing || strings.Join(got.Finders, ",") != "raid" || !got.Auth || got.Interval != 2 {
		t.Fatalf("overview %s", a.raw)
	}
	if a.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("Cache-Control %q", a.header.Get("Cache-Control"))
	}
	f.do(t, "GET", APIPrefix+"nope", "").refused(t, http.StatusNotFound, "not_found", "")
	f.do(t, "DELETE", APIPrefix+"overview", "").refused(t, http.StatusNotFound, "not_found", "")

	// Authorize runs before every endpoint, and its refusal is answered
	// in its own code; nothing behind it runs.
	var asked []string
	h := New(Options{Tickets: f.tickets, Logger: slog.New(slog.DiscardHandler), Authorize: func(r *http.Request) error {
		asked = append(asked, r.URL.Path)
		return cupid.Errorf(cupid.CodeDenied, "", "an admin key is needed")
	}})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("PUT", APIPrefix+"rulesets/duel", strings.NewReader(`{"ruleset":"{}"}`)))
	if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "permission_denied") || len(asked) != 1 {
		t.Fatalf("refused: %d %s (asked %v)", w.Code, w.Body, asked)
	}
	if _, v, _ := f.tickets.Rulesets().Ruleset("duel"); v != 1 {
		t.Fatalf("a refused put changed the ruleset to version %d", v)
	}
}

func TestTicketsEndpoint(t *testing.T) {
	f := newFixture(t, Options{})
	ann := f.queue(t, "ann", 1500)
	for _, c := range []struct {
		name, query string
		status      int
		code, field string
	}{
		{"neither id nor player", "", 400, "invalid_argument", "id"},
		{"blank id and player", "?id=%20&player=%20", 400, "invalid_argument", "id"},
		{"an id too long", "?id=" + strings.Repeat("x", maxID+1), 400, "invalid_argument", "id"},
		{"an unknown ticket", "?id=nope", 404, "not_found", "id"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f.do(t, "GET", APIPrefix+"tickets"+c.query, "").refused(t, c.status, c.code, c.field)
		})
	}
	a := f.do(t, "GET", APIPrefix+"tickets?id="+ann.ID, "").ok(t)
	tks := a.body["tickets"].([]any)
	got := tks[0].(map[string]any)
	if len(tks) != 1 || got["id"] != ann.ID || got["state"] != "waiting" || got["key"] != "duel" || len(got["why"].([]any)) == 0 {
		t.Fatalf("ann's ticket: %s", a.raw)
	}
	if a := f.do(t, "GET", APIPrefix+"tickets?player=nobody", "").ok(t); len(a.body["tickets"].([]any)) != 0 {
		t.Fatalf("nobody's tickets: %s", a.raw)
	}

	// Once matched, a ticket shows its match and the wait it had.
	bob := f.queue(t, "bob", 1500)
	f.tickets.Wake()
	a = f.do(t, "GET", APIPrefix+"tickets?player=bob", "").ok(t)
	tks = a.body["tickets"].([]any)
	if len(tks) != 1 {
		t.Fatalf("bob's tickets: %s", a.raw)
	}
	got = tks[0].(map[string]any)
	if got["id"] != bob.ID || got["state"] != "matched" || got["match"] == nil || got["match_id"] == "" || got["why"] != nil {
		t.Fatalf("bob's matched ticket: %s", a.raw)
	}
}

func TestRulesetEndpoints(t *testing.T) {
	f := newFixture(t, Options{})
	a := f.do(t, "GET", APIPrefix+"rulesets/duel", "").ok(t)
	if a.body["queue"] != "duel" || a.body["version"] != 1.0 || !strings.Contains(a.body["ruleset"].(string), "\n  \"alliance\"") {
		t.Fatalf("the live ruleset, indented for the editor: %s", a.raw)
	}
	f.do(t, "GET", APIPrefix+"rulesets/nope", "").refused(t, 404, "not_found", "queue")

	broken := jsonQuote("{\n  \"alliance\": {\"min_number\": 2, \"max_number\": 2, \"player_min_number\": 1, \"player_max_number\": 1},\n  \"matching_rule\": [{\"attribute\": \"mmr\", \"criteria\": \"distanse\", \"reference\": 100}]\n}")
	two := strings.Replace(duelRules, `"max_number": 2`, `"max_number": 3`, 1)
	for _, c := range []struct {
		name, method, path, body string
		status                   int
		code, field              string
	}{
		{"put without a body", "PUT", "rulesets/duel", "", 400, "invalid_argument", "body"},
		{"put not JSON", "PUT", "rulesets/duel", "{", 400, "invalid_argument", "body"},
		{"put an unknown field", "PUT", "rulesets/duel", `{"rules":"{}"}`, 400, "invalid_argument", "body"},
		{"put a broken ruleset", "PUT", "rulesets/duel", `{"ruleset":` + broken + `,"expected_version":1}`, 400, "invalid_argument", "ruleset"},
		{"put a stale version", "PUT", "rulesets/duel", `{"ruleset":` + jsonQuote(two) + `,"expected_version":7}`, 409, "failed_precondition", "expected_version"},
		{"put to an unknown queue", "PUT", "rulesets/nope", `{"ruleset":` + jsonQuote(two) + `}`, 404, "not_found", "queue"},
		{"put over the size limit", "PUT", "rulesets/duel", `{"ruleset":"` + strings.Repeat("x", maxBody) + `"}`, 413, "resource_exhausted", ""},
		{"check without a body", "POST", "check", "", 400, "invalid_argument", "body"},
		{"check a number", "POST", "check", `3`, 400, "invalid_argument", "body"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f.do(t, c.method, APIPrefix+c.path, c.body).refused(t, c.status, c.code, c.field)
			if _, v, _ := f.tickets.Rulesets().Ruleset("duel"); v != 1 {
				t.Fatalf("a refused call changed the ruleset to version %d", v)
			}
		})
	}
	// A broken ruleset's problems are listed at their lines.
	a = f.do(t, "PUT", APIPrefix+"rulesets/duel", `{"ruleset":`+broken+`}`)
	ps, _ := a.body["problems"].([]any)
	if len(ps) == 0 || ps[0].(map[string]any)["line"] != 3.0 {
		t.Fatalf("problems of a refused put: %s", a.raw)
	}
	a = f.do(t, "POST", APIPrefix+"check", `{"ruleset":`+broken+`}`).ok(t)
	if a.body["valid"] != false || len(a.body["problems"].([]any)) == 0 {
		t.Fatalf("check of a broken ruleset: %s", a.raw)
	}
	if a := f.do(t, "POST", APIPrefix+"check", `{"ruleset":`+jsonQuote(two)+`}`).ok(t); a.body["valid"] != true || len(a.body["problems"].([]any)) != 0 {
		t.Fatalf("check of a good ruleset: %s", a.raw)
	}

	a = f.do(t, "PUT", APIPrefix+"rulesets/duel", `{"ruleset":`+jsonQuote(two)+`,"expected_version":1}`).ok(t)
	if a.body["version"] != 2.0 {
		t.Fatalf("put: %s", a.raw)
	}
	a = f.do(t, "GET", APIPrefix+"rulesets/duel", "").ok(t)
	if a.body["version"] != 2.0 || !strings.Contains(a.body["ruleset"].(string), `"max_number": 3`) || len(a.body["history"].([]any)) < 1 {
		t.Fatalf("after the put: %s", a.raw)
	}
}

func TestTryRefusesBadScenarios(t *testing.T) {
	f := newFixture(t, Options{})
	rules := jsonQuote(duelRules)
	for _, c := range []struct {
		name, body, field string
	}{
		{"no body", "", "body"},
		{"no ruleset", `{"tickets":[{"id":"a"}]}`, "ruleset"},
		{"no tickets", `{"ruleset":` + rules + `}`, "tickets"},
		{"too many tickets", `{"ruleset":` + rules + `,"tickets":[{"id":"a"}` + strings.Repeat(`,{"id":"a"}`, maxTryTickets) + `]}`, "tickets"},
		{"until negative", `{"ruleset":` + rules + `,"tickets":[{"id":"a"}],"until":-1}`, "until"},
		{"until past an hour", `{"ruleset":` + rules + `,"tickets":[{"id":"a"}],"until":3601}`, "until"},
		{"a ticket after the hour", `{"ruleset":` + rules + `,"tickets":[{"id":"a"},{"id":"b","at":4000}]}`, "tickets[1].at"},
		// A party is built player by player before the ruleset judges it:
		// one of two billion would take the server's memory.
		{"a party larger than a ticket holds", `{"ruleset":` + rules + `,"tickets":[{"id":"a"},{"id":"b","party":101}]}`, "tickets[1].party"},
		{"a broken ruleset", `{"ruleset":"{\"alliance\":{}}","tickets":[{"id":"a"}]}`, "ruleset"},
		{"an unknown field", `{"ruleset":` + rules + `,"tickets":[{"id":"a"}],"speed":2}`, "body"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f.do(t, "POST", APIPrefix+"try", c.body).refused(t, 400, "invalid_argument", c.field)
		})
	}
	a := f.do(t, "POST", APIPrefix+"try", `{"ruleset":`+rules+`,"tickets":[{"id":"a"},{"id":"b","at":2}],"until":10,"seed":3}`).ok(t)
	if a.body["report"] == nil || !strings.Contains(a.body["text"].(string), "a") {
		t.Fatalf("try: %s", a.raw)
	}
}

func TestStreamParameters(t *testing.T) {
	f := newFixture(t, Options{})
	for _, c := range []struct {
		name, query string
		status      int
		code, field string
	}{
		{"no page", "", 400, "invalid_argument", "page"},
		{"an unknown page", "?page=tickets", 400, "invalid_argument", "page"},
		{"matches of an unknown queue", "?page=matches&queue=nope", 404, "not_found", "queue"},
		{"a ticket id too long", "?page=matches&ticket=" + strings.Repeat("x", maxID+1), 400, "invalid_argument", "ticket"},
		{"an event id too long", "?page=events&event=" + strings.Repeat("x", maxID+1), 400, "invalid_argument", "event"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f.do(t, "GET", APIPrefix+"stream"+c.query, "").refused(t, c.status, c.code, c.field)
		})
	}
	// A server without events or finders says so on their pages.
	bare := httptest.NewServer(New(Options{Tickets: f.tickets, Logger: slog.New(slog.DiscardHandler)}))
	defer bare.Close()
	b := &fixture{url: bare.URL}
	for _, page := range []string{"events", "finders"} {
		b.do(t, "GET", APIPrefix+"stream?page="+page, "").refused(t, 404, "not_found", "page")
	}
	if a := b.do(t, "GET", APIPrefix+"overview", "").ok(t); a.body["pairing"] != false || len(a.body["finders"].([]any)) != 0 {
		t.Fatalf("overview without events and finders: %s", a.raw)
	}
}

// The matches page's stream follows the ticket it shows: waiting, then
// matched; a ticket that does not exist is an error event on a stream
// that stays open.
func TestMatchesStreamFollowsATicket(t *testing.T) {
	f := newFixture(t, Options{Interval: 10 * time.Millisecond})
	ann := f.queue(t, "ann", 1500)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, status := openStream(t, ctx, f.url+APIPrefix+"stream?page=matches&queue=duel&ticket="+ann.ID)
	if status != http.StatusOK {
		t.Fatalf("stream: %d", status)
	}
	defer s.res.Body.Close()
	if s.res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("Content-Type %q", s.res.Header.Get("Content-Type"))
	}
	_, snap := s.next(t)
	if tk := snap["ticket"].(map[string]any); tk["state"] != "waiting" || tk["id"] != ann.ID {
		t.Fatalf("first snapshot %v", snap)
	}
	f.queue(t, "bob", 1500)
	f.tickets.Wake()
	for {
		_, snap := s.next(t)
		if snap["ticket"].(map[string]any)["state"] == "matched" {
			if len(snap["recent"].([]any)) != 1 {
				t.Fatalf("recent matches %v", snap["recent"])
			}
			break
		}
	}

	bad, status := openStream(t, ctx, f.url+APIPrefix+"stream?page=matches&ticket=nope")
	if status != http.StatusOK {
		t.Fatalf("stream of an unknown ticket: %d", status)
	}
	defer bad.res.Body.Close()
	if kind, msg := bad.next(t); kind != "error" || msg["code"] != "not_found" {
		t.Fatalf("stream of an unknown ticket: %s %v", kind, msg)
	}

	q, status := openStream(t, ctx, f.url+APIPrefix+"stream?page=queues")
	if status != http.StatusOK {
		t.Fatalf("queues stream: %d", status)
	}
	defer q.res.Body.Close()
	if _, snap := q.next(t); len(snap["queues"].([]any)) != 1 || len(snap["recent"].([]any)) != 1 {
		t.Fatalf("queues snapshot %v", snap)
	}
	fs, status := openStream(t, ctx, f.url+APIPrefix+"stream?page=finders")
	if status != http.StatusOK {
		t.Fatalf("finders stream: %d", status)
	}
	defer fs.res.Body.Close()
	if _, snap := fs.next(t); len(snap["finders"].([]any)) != 1 {
		t.Fatalf("finders snapshot %v", snap)
	}
}

// A search by player lists at most 20 tickets, newest first, as
// docs/dashboard.md says.
func TestTicketsByPlayerAreBounded(t *testing.T) {
	f := newFixture(t, Options{})
	var ids []string
	for i := range 22 {
		ids = append(ids, f.queue(t, "ann", 1500).ID)
		f.queue(t, fmt.Sprintf("rival%d", i), 1500)
		f.tickets.Wake()
		// The game is over: its session ends, so ann may be matched
		// again (a player is in one live match at most).
		v, err := f.tickets.GetTicket(context.Background(), ids[i])
		if err != nil || v.Ticket.MatchID == "" {
			t.Fatalf("ann's ticket %d: %+v %v", i, v, err)
		}
		if _, err := f.tickets.Handoff().EndSession(context.Background(), v.Ticket.MatchID); err != nil {
			t.Fatal(err)
		}
	}
	waiting := f.queue(t, "ann", 1500)
	a := f.do(t, "GET", APIPrefix+"tickets?player=ann", "").ok(t)
	tks := a.body["tickets"].([]any)
	if len(tks) != 20 {
		t.Fatalf("%d tickets, want 20", len(tks))
	}
	if first := tks[0].(map[string]any); first["id"] != waiting.ID || first["state"] != "waiting" {
		t.Fatalf("first %v, want the waiting ticket", first)
	}
	for i, v := range tks[1:] {
		if got, want := v.(map[string]any)["id"], ids[len(ids)-1-i]; got != want {
			t.Fatalf("ticket %d is %v, want %s (newest first)", i+1, got, want)
		}
	}
}
