package ticketsvc

import (
	"context"
	"testing"
	"time"

	"github.com/cupid-match/cupid/memstore"
)

// TestReplacedRulesetKeepsTheQueueSettings: a ruleset replaced at run time
// changes the rules only; the queue's other settings (assign timeout, ready
// check, leaver window) stay as configured, after the replacement and after
// a restart that reloads the stored ruleset. Both places once dropped some.
func TestReplacedRulesetKeepsTheQueueSettings(t *testing.T) {
	store := memstore.New()
	qs := []Queue{{Name: "duel", TTL: time.Minute, Ruleset: []byte(duelRules),
		AssignTimeout: 30 * time.Second, OnAssignTimeout: CancelTickets, LeaverWindow: time.Minute,
		Acceptance: Acceptance{Timeout: 20 * time.Second, OnDecline: DeclineRequeueLast}}}
	h := start(t, store, qs)
	if _, err := h.PutRuleset(context.Background(), "duel", []byte(duelRules), 0); err != nil {
		t.Fatal(err)
	}
	check := func(when string, s *Service) {
		t.Helper()
		q := s.queue("duel")
		if q.version != 2 || q.assignTimeout != 30*time.Second || q.onTimeout != CancelTickets || q.leaverWindow != time.Minute ||
			q.accept.Timeout != 20*time.Second || q.accept.OnDecline != DeclineRequeueLast || q.ttl != time.Minute {
			t.Fatalf("%s: version %d, assign %v/%v, leaver window %v, ready check %+v, ttl %v", when, q.version, q.assignTimeout, q.onTimeout, q.leaverWindow, q.accept, q.ttl)
		}
	}
	check("after the replacement", h.Service)
	h.Close()
	check("after a restart", start(t, store, qs).Service)
}
