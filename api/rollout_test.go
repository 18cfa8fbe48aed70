package api

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cupid-match/cupid/rollout"
)

// twoVsTwoRules need four one-player tickets: on pairs that arrive 5 s
// apart the first pair waits for the next, a canary that worsens waits.
const twoVsTwoRules = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 2, "player_max_number": 2}}`

// The roll-out service through the server: admin keys only, bad requests
// named by field, a shadow's report, a canary rolled back by its guard.
func TestRolloutsOverHTTP(t *testing.T) {
	e := newEnv(t, envOptions{options: func(o *Options) {
		o.Auth = testAuth(t,
			ServerKey{Name: "backend", Hash: HashKey(keyTickets), Scopes: []Scope{ScopeTickets}},
			ServerKey{Name: "ops", Hash: HashKey(keyAdmin), Scopes: []Scope{ScopeAdmin}})
	}})
	rs := func(src string) string { return strings.ReplaceAll(strings.ReplaceAll(src, `"`, `\"`), "\n", " ") }
	start := fmt.Sprintf(`{"queue":"duel","ruleset":"%s","reason":"try"}`, rs(duelRules))
	if r := e.rpc("RolloutService/StartShadow", keyTickets, start); r.status != 403 {
		t.Fatalf("a tickets key started a shadow: %d %s", r.status, r.raw)
	}
	if r := e.rpc("RolloutService/StartShadow", playerToken(t, "ann"), start); r.status != 403 {
		t.Fatalf("a player started a shadow: %d %s", r.status, r.raw)
	}
	for _, bad := range []struct{ proc, body, field string }{
		{"RolloutService/StartShadow", `{"queue":"duel","ruleset":"{"}`, "ruleset"},
		{"RolloutService/StartCanary", fmt.Sprintf(`{"queue":"duel","ruleset":"%s","share":2}`, rs(duelRules)), "share"},
		{"RolloutService/StartCanary", fmt.Sprintf(`{"queue":"duel","ruleset":"%s","share":0.1,"guard":{"waitMargin":0.1,"windowSeconds":1e12,"minSamples":5}}`, rs(duelRules)), "guard.window_seconds"},
		{"RolloutService/StartCanary", fmt.Sprintf(`{"queue":"duel","ruleset":"%s","share":0.1,"guard":{"waitMargin":0.1,"windowSeconds":60,"minSamples":0}}`, rs(duelRules)), "guard.min_samples"},
	} {
		r := e.rpc(bad.proc, keyAdmin, bad.body)
		if r.status != 400 || !strings.Contains(r.raw, bad.field) {
			t.Errorf("%s %s: %d %s, want 400 naming %s", bad.proc, bad.body, r.status, r.raw, bad.field)
		}
	}
	if r := e.rpc("RolloutService/StartShadow", keyAdmin, start); r.status != 200 {
		t.Fatalf("start: %d %s", r.status, r.raw)
	}
	if r := e.rpc("RolloutService/StartShadow", keyAdmin, start); r.status != 409 || !strings.Contains(r.raw, "one at a time") {
		t.Fatalf("a second shadow: %d %s", r.status, r.raw)
	}
	for _, p := range []string{"ann", "bob"} {
		if r := e.rpc("TicketService/CreateTicket", keyTickets, `{"queue":"duel","players":[{"id":"`+p+`","attributes":{"mmr":1500}}]}`); r.status != 200 {
			t.Fatalf("create: %d %s", r.status, r.raw)
		}
	}
	e.svc.Wake()
	r := e.rpc("RolloutService/ShadowReport", keyAdmin, `{"queue":"duel"}`)
	keys, _ := r.body["report"].(map[string]any)["keys"].([]any)
	if r.status != 200 || len(keys) != 1 || !strings.Contains(r.raw, `"live":{"matches":1`) || !strings.Contains(r.raw, `"shadow":{"matches":1`) {
		t.Fatalf("report: %d %s", r.status, r.raw)
	}
	if r := e.rpc("RolloutService/StopShadow", keyAdmin, `{"queue":"duel"}`); r.status != 200 {
		t.Fatalf("stop: %d %s", r.status, r.raw)
	}

	// A canary that keeps its first pair waiting is rolled back by its
	// guard.
	canary := fmt.Sprintf(`{"queue":"duel","ruleset":"%s","share":0.5,"guard":{"waitMargin":0.5,"windowSeconds":600,"minSamples":4}}`, rs(twoVsTwoRules))
	if r := e.rpc("RolloutService/StartCanary", keyAdmin, canary); r.status != 200 || !strings.Contains(r.raw, `"state":"running"`) {
		t.Fatalf("start canary: %d %s", r.status, r.raw)
	}
	n := 0
	player := func(onCanary bool) string {
		for {
			n++
			id := fmt.Sprintf("q%d", n)
			if rollout.InCanary("duel", id, 0.5) == onCanary {
				return id
			}
		}
	}
	for range 4 {
		for _, side := range []bool{false, true} {
			for range 2 {
				if r := e.rpc("TicketService/CreateTicket", keyTickets, `{"queue":"duel","players":[{"id":"`+player(side)+`","attributes":{"mmr":1500}}]}`); r.status != 200 {
					t.Fatalf("create: %d %s", r.status, r.raw)
				}
			}
		}
		e.svc.Wake()
		e.wait(5 * time.Second)
	}
	e.svc.Rollouts().CheckCanaries(context.Background())
	r = e.rpc("RolloutService/CanaryStatus", keyAdmin, `{"queue":"duel"}`)
	if r.status != 200 || !strings.Contains(r.raw, `"state":"rolled_back"`) || !strings.Contains(r.raw, `"reason":"guard: wait p90`) {
		t.Fatalf("after worse waits: %d %s", r.status, r.raw)
	}
	if r := e.rpc("RolloutService/PromoteCanary", keyAdmin, `{"queue":"duel"}`); r.status != 400 || !strings.Contains(r.raw, "failed_precondition") {
		t.Fatalf("promoting a rolled-back canary: %d %s", r.status, r.raw)
	}
}
