package dashboard

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/pairing"
	"github.com/cupid-match/cupid/service/pairingsvc"
)

// The operator's actions: each refuses bad input naming the field and
// changing nothing, does what it says through the service, and is noted in
// the action log with who did it, which a restart keeps.

func TestActionsRefuseBadInput(t *testing.T) {
	f := newFixture(t, Options{})
	ann := f.queue(t, "ann", 1500)
	long := strings.Repeat("x", maxID+1)
	many := `"` + strings.Repeat(`a","`, maxCancelIDs) + `a"`
	for _, c := range []struct {
		name, path, body string
		status           int
		code, field      string
	}{
		{"cancel: no body", "cancel", "", 400, "invalid_argument", "body"},
		{"cancel: an unknown field", "cancel", `{"ids":["a"],"force":true}`, 400, "invalid_argument", "body"},
		{"cancel: no ids", "cancel", `{"ids":[]}`, 400, "invalid_argument", "ids"},
		{"cancel: too many ids", "cancel", `{"ids":[` + many + `]}`, 400, "invalid_argument", "ids"},
		{"cancel: a blank id", "cancel", `{"ids":["` + ann.ID + `"," "]}`, 400, "invalid_argument", "ids[1]"},
		{"cancel: an id too long", "cancel", `{"ids":["` + long + `"]}`, 400, "invalid_argument", "ids[0]"},
		{"cancel: an id twice", "cancel", `{"ids":["` + ann.ID + `","` + ann.ID + `"]}`, 400, "invalid_argument", "ids[1]"},
		{"release: no match", "release", `{"requeue":true}`, 400, "invalid_argument", "match_id"},
		{"release: an id too long", "release", `{"match_id":"` + long + `"}`, 400, "invalid_argument", "match_id"},
		{"release: a reason too long", "release", `{"match_id":"m","reason":"` + strings.Repeat("r", maxReason+1) + `"}`, 400, "invalid_argument", "reason"},
		{"release: an unknown match", "release", `{"match_id":"nope"}`, 404, "not_found", "match_id"},
		{"event: no action", "event", `{"event":"mixer"}`, 400, "invalid_argument", "action"},
		{"event: an unknown action", "event", `{"event":"mixer","action":"explode"}`, 400, "invalid_argument", "action"},
		{"event: no event", "event", `{"action":"pause"}`, 400, "invalid_argument", "event"},
		{"event: an unknown event", "event", `{"event":"nope","action":"pause"}`, 404, "not_found", "event_id"},
		{"rebalance: no finder", "rebalance", `{}`, 400, "invalid_argument", "finder"},
		{"rebalance: an unknown finder", "rebalance", `{"finder":"nope"}`, 404, "not_found", "finder"},
		{"a wrong type", "rebalance", `{"finder":3}`, 400, "invalid_argument", "body"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f.do(t, "POST", APIPrefix+"actions/"+c.path, c.body).refused(t, c.status, c.code, c.field)
		})
	}
	f.do(t, "GET", APIPrefix+"actions/cancel", "").refused(t, http.StatusNotFound, "not_found", "")
	if v, err := f.tickets.GetTicket(context.Background(), ann.ID); err != nil || v.Ticket.State != cupid.StateWaiting {
		t.Fatalf("ann's ticket after refused actions: %v %v", v, err)
	}
}

func TestCancelAction(t *testing.T) {
	f := newFixture(t, Options{Who: func(*http.Request) string { return "server key ops" }})
	ann := f.queue(t, "ann", 1000) // alone in duel: waiting
	a := f.do(t, "POST", APIPrefix+"actions/cancel", `{"ids":["`+ann.ID+`","nope"]}`).ok(t)
	rs := a.body["results"].([]any)
	if len(rs) != 2 || rs[0].(map[string]any)["state"] != "cancelled" || rs[1].(map[string]any)["code"] != "not_found" {
		t.Fatalf("results %s", a.raw)
	}
	a = f.do(t, "GET", APIPrefix+"actions", "").ok(t)
	log := a.body["actions"].([]any)
	if len(log) != 1 {
		t.Fatalf("log %s", a.raw)
	}
	got := log[0].(map[string]any)
	if got["who"] != "server key ops" || got["what"] != "cancel 2 tickets: "+ann.ID+", nope" ||
		!strings.HasPrefix(got["outcome"].(string), "1 cancelled, 1 refused (nope: ") || got["ok"] != false {
		t.Fatalf("logged %s", a.raw)
	}
}

func TestReleaseAction(t *testing.T) {
	f := newFixture(t, Options{})
	ann, _ := f.queue(t, "ann", 1500), f.queue(t, "bob", 1500)
	f.tickets.Wake()
	v, err := f.tickets.GetTicket(context.Background(), ann.ID)
	if err != nil || v.Ticket.MatchID == "" {
		t.Fatalf("ann not matched: %v %v", v, err)
	}
	a := f.do(t, "POST", APIPrefix+"actions/release", `{"match_id":"`+v.Ticket.MatchID+`","requeue":true,"reason":"server crashed"}`).ok(t)
	if a.body["match"].(map[string]any)["state"] != "released" {
		t.Fatalf("released %s", a.raw)
	}
	// Released again: refused, and the refusal is logged too.
	f.do(t, "POST", APIPrefix+"actions/release", `{"match_id":"`+v.Ticket.MatchID+`"}`).refused(t, http.StatusConflict, "failed_precondition", "match_id")
	log := f.do(t, "GET", APIPrefix+"actions", "").ok(t).body["actions"].([]any)
	if len(log) != 2 || log[0].(map[string]any)["ok"] != false || log[1].(map[string]any)["outcome"] != "released (server crashed)" ||
		log[1].(map[string]any)["who"] != "anyone (the server has no auth)" {
		t.Fatalf("log %v", log)
	}
}

func TestEventAndRebalanceActions(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := context.Background()
	if _, err := f.pairing.CreateEvent(ctx, pairingsvc.NewEvent{ID: "mixer", Name: "Mixer",
		Config: pairing.Config{Rooms: 2, Round: time.Hour, Countdown: time.Hour, MinLobby: 2}}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"ann", "bob"} {
		if _, _, err := f.pairing.Join(ctx, "mixer", p); err != nil {
			t.Fatal(err)
		}
		if _, _, err := f.pairing.EnterLobby(ctx, "mixer", p); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		action string
		check  func(*pairingsvc.EventView) bool
	}{
		{"pause", func(v *pairingsvc.EventView) bool { return v.Paused }},
		{"resume", func(v *pairingsvc.EventView) bool { return !v.Paused }},
		{"start_round", func(v *pairingsvc.EventView) bool { return v.Round == 1 && v.Phase == pairing.PhaseRound }},
		{"end_round", func(v *pairingsvc.EventView) bool { return v.Phase != pairing.PhaseRound }},
	} {
		f.do(t, "POST", APIPrefix+"actions/event", `{"event":"mixer","action":"`+c.action+`"}`).ok(t)
		v, err := f.pairing.GetEvent(ctx, "mixer")
		if err != nil || !c.check(v) {
			t.Fatalf("after %s: %+v %v", c.action, v, err)
		}
	}
	a := f.do(t, "POST", APIPrefix+"actions/rebalance", `{"finder":"raid"}`).ok(t)
	if a.body["resized"] != false {
		t.Fatalf("an empty finder resized: %s", a.raw)
	}
	log := f.do(t, "GET", APIPrefix+"actions", "").ok(t).body["actions"].([]any)
	var whats []string
	for _, e := range log {
		whats = append(whats, e.(map[string]any)["what"].(string))
	}
	if strings.Join(whats, "|") != "rebalance finder raid|end round of event mixer|start round of event mixer|resume of event mixer|pause of event mixer" {
		t.Fatalf("log, newest first: %q", whats)
	}
}

// The log is kept in the store: a new server over the same store shows it,
// and it stays bounded.
func TestActionLogSurvivesARestartBounded(t *testing.T) {
	f := newFixture(t, Options{})
	for range storedActions + 1 {
		f.do(t, "POST", APIPrefix+"actions/rebalance", `{"finder":"raid"}`).ok(t)
	}
	ds, err := f.store.Documents(context.Background(), actionKind, "", 0)
	if err != nil || len(ds) > storedActions {
		t.Fatalf("%d actions stored (%v), want at most %d", len(ds), err, storedActions)
	}
	h := New(Options{Tickets: f.tickets, Docs: f.store, Logger: slog.New(slog.DiscardHandler)})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", APIPrefix+"actions", nil))
	if w.Code != 200 || strings.Count(w.Body.String(), "rebalance finder raid") != keptActions {
		t.Fatalf("after a restart: %d, %d actions", w.Code, strings.Count(w.Body.String(), "rebalance finder raid"))
	}
}

// An action refused by Authorize runs nothing and is not logged.
func TestActionsNeedAuthorization(t *testing.T) {
	f := newFixture(t, Options{})
	ann := f.queue(t, "ann", 1500)
	h := New(Options{Tickets: f.tickets, Docs: f.store, Logger: slog.New(slog.DiscardHandler), Authorize: func(r *http.Request) error {
		return cupid.Errorf(cupid.CodeDenied, "", "the dashboard needs a server key with the admin scope")
	}})
	for _, path := range []string{"actions/cancel", "actions/release", "actions/event", "actions/rebalance"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("POST", APIPrefix+path, strings.NewReader(`{"ids":["`+ann.ID+`"]}`)))
		if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "permission_denied") {
			t.Fatalf("%s: %d %s", path, w.Code, w.Body)
		}
	}
	if v, err := f.tickets.GetTicket(context.Background(), ann.ID); err != nil || v.Ticket.State != cupid.StateWaiting {
		t.Fatalf("ann's ticket after refused actions: %v %v", v, err)
	}
	if ds, _ := f.store.Documents(context.Background(), actionKind, "", 0); len(ds) != 0 {
		t.Fatalf("%d refused actions logged", len(ds))
	}
}
