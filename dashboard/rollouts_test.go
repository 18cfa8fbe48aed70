package dashboard

import (
	"context"
	"strings"
	"testing"

	"github.com/cupid-match/cupid/service/ticketsvc/canary"
)

// The roll-outs page's endpoints: what GET rollouts lists, and a canary's
// decisions refusing bad input (naming the field, deciding nothing) and
// taken and logged otherwise.
func TestRolloutEndpoints(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := context.Background()
	list := func() []any {
		t.Helper()
		rs, _ := f.do(t, "GET", APIPrefix+"rollouts", "").ok(t).body["rollouts"].([]any)
		return rs
	}
	if rs := list(); len(rs) != 0 {
		t.Fatalf("rollouts before any: %v", rs)
	}
	f.do(t, "POST", APIPrefix+"actions/canary", `{"queue":"duel","action":"rollback"}`).refused(t, 409, "failed_precondition", "queue")
	if _, err := f.tickets.Rollouts().StartCanary(ctx, canary.CanaryOptions{Queue: "duel", Ruleset: []byte(duelRules), Share: 0.2}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.tickets.Rollouts().StartShadow(ctx, canary.ShadowOptions{Queue: "duel", Ruleset: []byte(duelRules)}); err != nil {
		t.Fatal(err)
	}
	rs := list()
	if len(rs) != 1 {
		t.Fatalf("rollouts: %v", rs)
	}
	r := rs[0].(map[string]any)
	canary, _ := r["canary"].(map[string]any)
	if r["queue"] != "duel" || r["owned"] != true || r["shadow"] == nil || canary["state"] != "running" || canary["window_seconds"] != 600.0 {
		t.Fatalf("duel's roll-outs: %v", r)
	}

	for _, c := range []struct {
		name, body  string
		status      int
		code, field string
	}{
		{"no body", "", 400, "invalid_argument", "body"},
		{"an unknown field", `{"queue":"duel","action":"promote","force":true}`, 400, "invalid_argument", "body"},
		{"no action", `{"queue":"duel"}`, 400, "invalid_argument", "action"},
		{"an unknown action", `{"queue":"duel","action":"explode"}`, 400, "invalid_argument", "action"},
		{"no queue", `{"action":"promote"}`, 400, "invalid_argument", "queue"},
		{"a queue too long", `{"queue":"` + strings.Repeat("q", maxID+1) + `","action":"promote"}`, 400, "invalid_argument", "queue"},
		{"a reason too long", `{"queue":"duel","action":"promote","reason":"` + strings.Repeat("r", maxReason+1) + `"}`, 400, "invalid_argument", "reason"},
		{"an unknown queue", `{"queue":"nope","action":"promote"}`, 404, "not_found", "queue"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f.do(t, "POST", APIPrefix+"actions/canary", c.body).refused(t, c.status, c.code, c.field)
		})
	}
	if st, _ := f.tickets.Rollouts().CanaryStatus(ctx, "duel"); st.State != "running" {
		t.Fatalf("after refused decisions the canary is %s", st.State)
	}

	a := f.do(t, "POST", APIPrefix+"actions/canary", `{"queue":"duel","action":"rollback","reason":"long queues"}`).ok(t)
	if a.body["outcome"] != "rolled back" {
		t.Fatalf("roll back: %s", a.raw)
	}
	if st, _ := f.tickets.Rollouts().CanaryStatus(ctx, "duel"); st.State != "rolled_back" || st.Reason != "by the operator: long queues" {
		t.Fatalf("after the roll-back: %+v", st)
	}
	f.do(t, "POST", APIPrefix+"actions/canary", `{"queue":"duel","action":"promote"}`).refused(t, 409, "failed_precondition", "queue")
	acts := f.do(t, "GET", APIPrefix+"actions", "").ok(t).raw
	for _, want := range []string{"roll back the canary of queue duel (long queues)", "rolled back", "promote the canary of queue duel", "has no running canary"} {
		if !strings.Contains(acts, want) {
			t.Errorf("the action log lacks %q: %s", want, acts)
		}
	}
}
