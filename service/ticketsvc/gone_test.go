package ticketsvc

import (
	"fmt"
	"testing"
	"time"
)

// A pool remembers a ticket that ended before its add arrived for a
// minute, and then forgets it; what it keeps is the last minute's, however
// many came before, and a ticket marked again is kept a minute from then.
func TestGoneIsForgottenAfterAMinute(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	p := &pool{now: func() time.Time { return now }, gone: map[string]time.Time{}}
	for i := range 10000 {
		p.markGone(fmt.Sprintf("t%d", i))
	}
	if len(p.gone) != 10000 || len(p.goneOrder) != 10000 {
		t.Fatalf("after 10,000 marks within a second: %d gone, %d in order", len(p.gone), len(p.goneOrder))
	}
	now = now.Add(30 * time.Second)
	p.markGone("t5")     // marked again: kept a minute from now
	delete(p.gone, "t7") // its add arrived and took it
	now = now.Add(31 * time.Second)
	p.markGone("late")
	if _, ok := p.gone["t5"]; !ok {
		t.Error("t5, marked again 31 s ago, was forgotten")
	}
	if _, ok := p.gone["late"]; !ok {
		t.Error("the newest mark is missing")
	}
	if len(p.gone) != 2 || len(p.goneOrder) != 2 {
		t.Errorf("a minute later: %d gone, %d in order; want 2 and 2 (t5 and late)", len(p.gone), len(p.goneOrder))
	}
	if cap(p.goneOrder) > 1024 {
		t.Errorf("the order keeps an array of %d for 2 entries", cap(p.goneOrder))
	}
	now = now.Add(2 * time.Minute)
	p.markGone("last")
	if len(p.gone) != 1 || len(p.goneOrder) != 1 {
		t.Errorf("two minutes later: %d gone, %d in order; want 1 and 1", len(p.gone), len(p.goneOrder))
	}
}
