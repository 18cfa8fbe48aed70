package main

import (
	"encoding/json"
	"testing"

	"github.com/chromedp/chromedp"
)

// The roll-outs page in a real headless Chromium over a real server: a
// shadow's figures beside the live ones, a canary's state and guards, and
// its promotion asked, confirmed, done and noted in the action log.
func TestRolloutsPageInTheBrowser(t *testing.T) {
	bctx := newDashboardBrowser(t)
	s := startServer(t, serveFlags{})
	c := s.connectClient()
	b := openTab(t, bctx, s.url+"/dashboard/#/rollouts")
	b.until(t, "the page without roll-outs", `document.querySelector('#no-rollouts')`)

	const wider = `{\"alliance\":{\"min_number\":2,\"max_number\":2,\"player_min_number\":1,\"player_max_number\":1},` +
		`\"matching_rule\":[{\"attribute\":\"mmr\",\"criteria\":\"distance\",\"reference\":150,\"max\":3000}]}`
	postOK(t, s.url, "/cupid.v1.RolloutService/StartShadow", `{"queue":"duel","ruleset":"`+wider+`"}`)
	postOK(t, s.url, "/cupid.v1.RolloutService/StartCanary", `{"queue":"duel","share":0.1,"ruleset":"`+wider+`"}`)
	// Two players the canary leaves live: a live match, seen by the shadow.
	ann := create(t, c, "duel", player("ann", 1500))
	create(t, c, "duel", player("ben", 1580))
	if ev := waitFinal(t, c, ann.GetId(), 0); ev.GetKind() != "matched" {
		t.Fatalf("ann's ticket ended %s", ev.GetKind())
	}

	duel := `document.querySelector('section.box[data-queue="duel"]')`
	b.do(t, "refresh", chromedp.Click(chromedp.CSS(`#refresh`)))
	b.until(t, "the canary running and the shadow's live match", duel+`?.querySelector('.canary-state')?.textContent === 'running' && `+
		duel+`.querySelector('table.shadow-key tr.m-matches td.side-live')?.textContent === '1' && `+
		duel+`.querySelector('table.sides .samples')?.textContent === '2'`)
	// The guards speak within a second of the start.
	b.until(t, "the guards' last word", `(document.querySelector('#refresh').click(), true) && `+
		duel+`?.querySelector('.guard-word')?.textContent.startsWith('waiting for samples: 2 live and 0 canary')`)
	b.shot(t, "rollouts")

	// Saying no does nothing.
	b.do(t, "ask to roll back", chromedp.Click(chromedp.CSS(`section.box[data-queue="duel"] button.rollback`)))
	b.until(t, "the question", duel+`.querySelector('.confirm:not([hidden])')?.textContent.includes('Roll back the canary of duel?')`)
	b.do(t, "say no", chromedp.Click(chromedp.CSS(`section.box[data-queue="duel"] .confirm button.no`)))
	if st := canaryState(t, s.url); st != "running" {
		t.Fatalf("after no the canary is %s", st)
	}

	b.do(t, "give a reason", chromedp.SetValue(chromedp.CSS(`section.box[data-queue="duel"] input.reason`), "as fast, wider pairs"))
	b.do(t, "ask to promote", chromedp.Click(chromedp.CSS(`section.box[data-queue="duel"] button.promote`)))
	b.until(t, "the question", duel+`.querySelector('.confirm:not([hidden])')?.textContent.includes('Promote the canary of duel?')`)
	b.do(t, "say yes", chromedp.Click(chromedp.CSS(`section.box[data-queue="duel"] .confirm button.yes`)))
	b.until(t, "promoted", `document.querySelector('#rollout-result.ok')?.textContent.includes('promoted: the queue runs its candidate as version 2') && `+
		duel+`?.querySelector('.canary-state')?.textContent === 'promoted' && !`+duel+`.querySelector('button.promote')`)
	if st := canaryState(t, s.url); st != "promoted" {
		t.Fatalf("after yes the canary is %s", st)
	}
	b.page(t, "#/ops")
	b.until(t, "the action log", `[...document.querySelectorAll('#action-log tr.action')].some(r => r.textContent.includes('promote the canary of queue duel (as fast, wider pairs)'))`)

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

func canaryState(t *testing.T, url string) string {
	t.Helper()
	var st struct{ Status struct{ State string } }
	if err := json.Unmarshal(postOK(t, url, "/cupid.v1.RolloutService/CanaryStatus", `{"queue":"duel"}`), &st); err != nil {
		t.Fatal(err)
	}
	return st.Status.State
}
