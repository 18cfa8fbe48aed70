package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// What an operator does during a launch, in a real headless Chromium over
// a real server: the queues' statistics read back from the store after a
// restart through the time-range picker, the wait estimate shown, and each
// action (cancel a ticket, pause and start a speed-dating round, rebalance
// a finder, release a match) confirmed on the page, done, and listed in
// the action log.
func TestDashboardOperationsInTheBrowser(t *testing.T) {
	bctx := newDashboardBrowser(t)
	first := startServer(t, serveFlags{})
	c := first.connectClient()
	alice := create(t, c, "duel", player("alice", 1500))
	create(t, c, "duel", player("bob", 1540))
	if ev := waitFinal(t, c, alice.GetId(), 0); ev.GetKind() != "matched" {
		t.Fatalf("alice's ticket ended %s", ev.GetKind())
	}
	first.stop() // writes what it saw of this minute to the store

	s := startServer(t, serveFlags{data: first.data})
	c = s.connectClient()
	zed := create(t, c, "duel", player("zed", 2990))
	b := openTab(t, bctx, s.url+"/dashboard/#/queues")

	t.Run("the range picker shows the history across the restart", func(t *testing.T) {
		b.until(t, "the queues page", `document.querySelector('.waiting[data-queue="duel"]')?.textContent === "1"`)
		if got := eval[string](t, b, `document.querySelector('.estimate[data-queue="duel"]').textContent`); got == "" {
			t.Fatal("no wait estimate shown")
		}
		b.do(t, "pick 6 h", chromedp.Click(chromedp.CSS(`#ranges button[data-range="6h"]`)))
		duel := `[...document.querySelectorAll('section.box')].find(s => s.querySelector('h2')?.textContent === 'duel')`
		b.until(t, "duel's 6 h history: 2 arrivals, 1 match", duel+`?.querySelector('.history[data-range="6h"] .h-matches')?.textContent === "1" && `+
			duel+`.querySelector('.history .h-arrivals').textContent === "2"`)
		if n := eval[int](t, b, duel+`.querySelectorAll('.history svg.chart rect.bar-a').length`); n < 72 {
			t.Fatalf("%d bars in the 6 h chart, want 72 steps of 5 min", n)
		}
		b.shot(t, "queues-history")
		b.do(t, "pick 7 d", chromedp.Click(chromedp.CSS(`#ranges button[data-range="7d"]`)))
		b.until(t, "duel's 7 d history", duel+`?.querySelector('.history[data-range="7d"] .h-matches')?.textContent === "1"`)
		b.do(t, "back to the last hour", chromedp.Click(chromedp.CSS(`#ranges button[data-range="1h"]`)))
		b.until(t, "no history shown for the live hour", `!document.querySelector('.history')`)
	})

	// confirm submits an action's form, checks the question it asks, says
	// yes and waits for its result.
	confirm := func(t *testing.T, form, question, result string) {
		t.Helper()
		b.do(t, "ask for "+form, chromedp.Click(chromedp.CSS(`#`+form+` button.go`)))
		b.until(t, "the question for "+form, fmt.Sprintf(`!document.querySelector('#%s .confirm').hidden && document.querySelector('#%s .confirm').textContent.includes(%s)`, form, form, jsString(question)))
		b.do(t, "say yes", chromedp.Click(chromedp.CSS(`#`+form+` .confirm button.yes`)))
		b.until(t, "the result of "+form, fmt.Sprintf(`document.querySelector('#%s .result.ok')?.textContent.includes(%s)`, form, jsString(result)))
	}
	logged := func(t *testing.T, what string) {
		t.Helper()
		b.until(t, "logged: "+what, fmt.Sprintf(`[...document.querySelectorAll('#action-log tr.action')].some(r => r.textContent.includes(%s))`, jsString(what)))
	}

	t.Run("cancel a ticket", func(t *testing.T) {
		b.page(t, "#/ops")
		b.until(t, "the operations page", `document.querySelector('#cancel-ids') && document.querySelector('#action-log p, #action-log table')`)
		// Saying no does nothing.
		b.do(t, "type zed's ticket", chromedp.SetValue(chromedp.CSS(`#cancel-ids`), zed.GetId()))
		b.do(t, "ask", chromedp.Click(chromedp.CSS(`#cancel button.go`)))
		b.do(t, "say no", chromedp.Click(chromedp.CSS(`#cancel .confirm button.no`)))
		if got := getTicket(t, c, zed.GetId()); got.GetState() != cupidv1.TicketState_TICKET_STATE_WAITING {
			t.Fatalf("zed's ticket %v after no", got.GetState())
		}
		confirm(t, "cancel", "Cancel ticket "+zed.GetId(), "1 cancelled")
		if got := getTicket(t, c, zed.GetId()); got.GetState() != cupidv1.TicketState_TICKET_STATE_CANCELLED {
			t.Fatalf("zed's ticket %v after yes", got.GetState())
		}
		logged(t, "cancel 1 ticket: "+zed.GetId())
	})

	t.Run("pause, resume and start a round", func(t *testing.T) {
		pc := pairingClient(s)
		createPairingEvent(t, pc, &cupidv1.CreateEventRequest{Id: "launch", Name: "Launch party", Seed: 3, Settings: &cupidv1.EventSettings{
			Rooms: 2, RoundMillis: 600_000, CountdownMillis: 600_000, MinLobby: 2,
		}})
		for _, p := range []string{"ada", "ben", "cat", "dan"} {
			mustCall(t, pc.Join, "launch", p)
			mustCall(t, pc.EnterLobby, "launch", p)
		}
		b.until(t, "the event to choose", `document.querySelector('#event-id option[value="launch"]')`)
		eval[any](t, b, `(() => { document.getElementById('event-id').value = 'launch'; document.getElementById('event-action').value = 'pause'; return null; })()`)
		confirm(t, "event", "Pause the timers of event launch", "paused")
		if !getPairingEvent(t, pc, "launch").GetPaused() {
			t.Fatal("the event is not paused")
		}
		logged(t, "pause of event launch")
		// A paused event starts no round: resume first.
		eval[any](t, b, `(() => { document.getElementById('event-action').value = 'resume'; return null; })()`)
		confirm(t, "event", "Resume the timers of event launch", "counting down")
		eval[any](t, b, `(() => { document.getElementById('event-action').value = 'start_round'; return null; })()`)
		confirm(t, "event", "Start a round of event launch", "round 1")
		if ev := getPairingEvent(t, pc, "launch"); ev.GetRound() != 1 {
			t.Fatalf("round %d after start", ev.GetRound())
		}
		logged(t, "start round of event launch")
	})

	t.Run("rebalance a finder", func(t *testing.T) {
		confirm(t, "rebalance", "Resize the buckets of finder raid", "samples")
		logged(t, "rebalance finder raid")
	})

	t.Run("release a match", func(t *testing.T) {
		p1 := create(t, c, "duel", player("p1", 1500))
		create(t, c, "duel", player("p2", 1500))
		waitFinal(t, c, p1.GetId(), 0)
		match := getTicket(t, c, p1.GetId()).GetMatchId()
		b.do(t, "type the match", chromedp.SetValue(chromedp.CSS(`#release-id`), match), chromedp.SetValue(chromedp.CSS(`#release-reason`), "game server lost"))
		confirm(t, "release", "Release match "+match+", its tickets back in their pool", "released")
		logged(t, "release match "+match)
		b.until(t, "the nodes and retention sections", `document.querySelector('#nodes p') && document.querySelector('#retention table.kinds tr.kind')`)
		eval[any](t, b, `window.scrollTo(0, 0); null`)
		b.shot(t, "ops")
	})

	b.log.mu.Lock()
	defer b.log.mu.Unlock()
	for _, f := range b.log.failed {
		if !f.Canceled {
			t.Errorf("a request failed: %s %s", b.log.urls[f.RequestID], f.ErrorText)
		}
	}
	checkConsole(t, b.log.console)
	for _, e := range b.thrown {
		t.Errorf("a page threw: %s", e)
	}
}

// With auth on, only an admin key acts: a tickets key and a player's own
// token are refused and change nothing; the admin's action is logged under
// the key's name.
func TestDashboardActionsNeedAnAdminKey(t *testing.T) {
	s, _ := authServer(t)
	c := s.as("cupid_sk_tickets")
	ann := create(t, c.tickets, "duel", player("ann", 1500))
	post := func(key, path, body string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, s.url+"/dashboard/api/"+path, strings.NewReader(body))
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(res.Body).Decode(&out)
		return res.StatusCode, out
	}
	cancel := `{"ids":["` + ann.GetId() + `"]}`
	for _, c := range []struct {
		who, key string
		status   int
		code     string
	}{
		{"no key", "", http.StatusUnauthorized, "unauthenticated"},
		{"a tickets key", "cupid_sk_tickets", http.StatusForbidden, "permission_denied"},
		{"ann's own token", playerToken(t, "ann"), http.StatusForbidden, "permission_denied"},
	} {
		for _, path := range []string{"actions/cancel", "actions/release", "actions/event", "actions/rebalance", "actions/canary"} {
			if status, out := post(c.key, path, cancel); status != c.status || out["code"] != c.code {
				t.Fatalf("%s, %s: %d %v, want %d %s", c.who, path, status, out, c.status, c.code)
			}
		}
	}
	if got := getTicket(t, c.tickets, ann.GetId()); got.GetState() != cupidv1.TicketState_TICKET_STATE_WAITING {
		t.Fatalf("ann's ticket %v after refused actions", got.GetState())
	}
	if status, out := post("cupid_sk_admin", "actions/cancel", cancel); status != 200 {
		t.Fatalf("the admin's cancel: %d %v", status, out)
	}
	req, _ := http.NewRequest(http.MethodGet, s.url+"/dashboard/api/actions", nil)
	req.Header.Set("Authorization", "Bearer cupid_sk_admin")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var log struct {
		Actions []struct{ Who, What string } `json:"actions"`
	}
	if err := json.NewDecoder(res.Body).Decode(&log); err != nil {
		t.Fatal(err)
	}
	if len(log.Actions) != 1 || log.Actions[0].Who != "server key ops" || log.Actions[0].What != "cancel 1 ticket: "+ann.GetId() {
		t.Fatalf("the action log %+v", log.Actions)
	}
}
