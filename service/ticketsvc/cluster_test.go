package ticketsvc

import (
	"context"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/memstore"
)

// TestReplacedRulesetKeepsTheQueueSettings: a ruleset replaced at run time
// changes the rules only; the queue's other settings (assign timeout, ready
// check, leaver window) stay as configured, after the replacement and after
// a restart that reloads the stored ruleset. Both places once dropped some;
// the hand-off's settings are now package handoff's, by queue name, which a
// replacement does not touch (max_session was dropped before that).
func TestReplacedRulesetKeepsTheQueueSettings(t *testing.T) {
	store := memstore.New()
	qs := []Queue{{Name: "duel", TTL: time.Minute, Ruleset: []byte(duelRules),
		AssignTimeout: 30 * time.Second, OnAssignTimeout: CancelTickets, LeaverWindow: time.Minute, MaxSession: time.Hour,
		Acceptance: Acceptance{Timeout: 20 * time.Second, OnDecline: DeclineRequeueLast}}}
	h := start(t, store, qs)
	if _, err := h.Rulesets().Put(context.Background(), "duel", []byte(duelRules), 0, "api"); err != nil {
		t.Fatal(err)
	}
	check := func(when string, s *Service) {
		t.Helper()
		q := s.queue("duel")
		now := h.clock.Now()
		if q.version != 2 || q.ttl != time.Minute || !s.Handoff().AcceptBy("duel", now).Equal(now.Add(20*time.Second)) {
			t.Fatalf("%s: version %d, ttl %v, ready check until %v", when, q.version, q.ttl, s.Handoff().AcceptBy("duel", now))
		}
	}
	check("after the replacement", h.Service)
	h.Close()
	check("after a restart", start(t, store, qs).Service)
}

// TestReplacedRulesetKeepsMaxSession: a queue's max_session still ends its
// sessions after its ruleset was replaced. The replacement once dropped it
// (keepSettings did not copy it), so sessions of a replaced queue ran for
// ever; the hand-off now keeps its settings by queue name.
func TestReplacedRulesetKeepsMaxSession(t *testing.T) {
	h := start(t, memstore.New(), []Queue{{Name: "duel", TTL: time.Minute, Ruleset: []byte(duelRules), MaxSession: time.Minute}})
	ctx := context.Background()
	if _, err := h.Rulesets().Put(ctx, "duel", []byte(duelRules), 0, "api"); err != nil {
		t.Fatal(err)
	}
	_, _, mid := h.matched(t, "alice", "bob")
	h.clock.Advance(time.Minute)
	h.Handoff().ReleaseDue(ctx)
	if r, err := h.Handoff().GetMatch(ctx, mid); err != nil || r.State != cupid.MatchEnded {
		t.Fatalf("a session past max_session after a replacement: %+v (%v)", r, err)
	}
}
