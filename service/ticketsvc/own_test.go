package ticketsvc

import (
	"slices"
	"testing"

	cupid "github.com/cupid-match/cupid"
)

func TestOwnEventsAreTakenOnceAndBounded(t *testing.T) {
	o := newOwnEvents(3)
	ev := func(seq int64) cupid.Event { return cupid.Event{Seq: seq, TicketID: "t", Kind: cupid.EventMatched} }
	o.remember([]cupid.Event{ev(1), ev(2), ev(3), ev(4)}) // 1 is overwritten
	own, rest := o.take([]int64{1, 2, 4, 9})
	if got := seqsOf(own); !slices.Equal(got, []int64{2, 4}) {
		t.Errorf("own %v, want [2 4]", got)
	}
	if !slices.Equal(rest, []int64{1, 9}) {
		t.Errorf("rest %v, want [1 9]: forgotten and another node's are read", rest)
	}
	if own, rest := o.take([]int64{2, 3}); !slices.Equal(seqsOf(own), []int64{3}) || !slices.Equal(rest, []int64{2}) {
		t.Errorf("second take: own %v rest %v, want [3] and [2] (taken once)", seqsOf(own), rest)
	}
	if len(o.evs) != 0 {
		t.Errorf("%d events still held, want none", len(o.evs))
	}
	o.remember([]cupid.Event{ev(5), ev(6), ev(7), ev(8), ev(9)})
	if len(o.evs) > 3 {
		t.Errorf("%d events held, want at most 3", len(o.evs))
	}
}

func TestBySeqMergesInSequenceOrder(t *testing.T) {
	own := []cupid.Event{{Seq: 5}, {Seq: 2}}
	read := []cupid.TicketChange{{Event: cupid.Event{Seq: 3}}, {Event: cupid.Event{Seq: 7}}, {Event: cupid.Event{Seq: 1}}}
	if got := seqsOf(bySeq(own, read)); !slices.Equal(got, []int64{1, 2, 3, 5, 7}) {
		t.Errorf("merged %v, want [1 2 3 5 7]", got)
	}
}

func seqsOf(evs []cupid.Event) []int64 {
	out := make([]int64, len(evs))
	for i, ev := range evs {
		out[i] = ev.Seq
	}
	return out
}

// TestClusterNodeServesItsOwnWritesFromMemory: the node that runs a queue
// hears the created events of the tickets it took in and the matched events
// of its own matches without reading them back, while the other node reads
// them all; a watcher on the other node still hears every event, in order.
// A ticket taken in by the other node for the queue is read by both.
func TestClusterNodeServesItsOwnWritesFromMemory(t *testing.T) {
	c := newCluster(t, 2, queues(0))
	a, b := c.nodes[0], c.nodes[1]
	a.Gain(LeaseName("duel"), fence("duel", 1))
	x := a.create(t, ticket("duel", 1000, "x"))
	a.create(t, ticket("duel", 1000, "y"))
	b.create(t, ticket("duel", 2900, "z")) // b runs no duel pool: its event goes round

	var heard []cupid.EventKind
	done := make(chan error, 1)
	go func() {
		done <- b.Watch(t.Context(), x.ID, 0, func(ev cupid.Event) error { heard = append(heard, ev.Kind); return nil })
	}()
	// a's pool matches x and y and has remembered its events once Wake
	// returns, so the one notification below brings all five events.
	c.wake(0)
	if s := a.state(t, x.ID).State; s != cupid.StateMatched {
		t.Fatalf("x is %s, want matched", s)
	}
	c.notify(t)
	if got := a.read.Load(); got != 1 {
		t.Errorf("a read %d events back, want 1 (z's created; x's and y's created and matched were its own)", got)
	}
	if got := b.read.Load(); got != 5 {
		t.Errorf("b read %d events back, want 5", got)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(heard, []cupid.EventKind{cupid.EventCreated, cupid.EventMatched}) {
		t.Errorf("b's watcher of x heard %v, want created then matched", heard)
	}
}
