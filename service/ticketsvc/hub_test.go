package ticketsvc

import (
	"slices"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
)

func ev(seq int64, ticket string, kind cupid.EventKind) cupid.Event {
	return cupid.Event{Seq: seq, TicketID: ticket, Kind: kind, At: time.Unix(seq, 0)}
}

func seqs(evs []cupid.Event) []int64 {
	var out []int64
	for _, e := range evs {
		out = append(out, e.Seq)
	}
	return out
}

func TestHubHistory(t *testing.T) {
	h := newHub(2)
	h.Publish(ev(1, "a", cupid.EventCreated), ev(2, "b", cupid.EventCreated))
	h.Publish(ev(3, "a", cupid.EventMatched), ev(4, "b", cupid.EventMatched))
	h.Publish(ev(5, "old", cupid.EventCancelled)) // no created event seen: no history

	for _, tc := range []struct {
		name      string
		ticket    string
		after     int64
		wantKnown bool
		want      []int64
	}{
		{"whole history", "a", 0, true, []int64{1, 3}},
		{"after the created event", "a", 1, true, []int64{3}},
		{"after everything", "b", 4, true, nil},
		{"created before the hub saw it", "old", 0, false, nil},
		{"never seen", "zzz", 0, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sub, past, known := h.subscribe(tc.ticket, tc.after)
			defer h.unsubscribe(sub)
			if known != tc.wantKnown || !slices.Equal(seqs(past), tc.want) {
				t.Fatalf("known=%v past=%v, want known=%v past=%v", known, seqs(past), tc.wantKnown, tc.want)
			}
		})
	}

	// A third ticket pushes out the oldest history.
	h.Publish(ev(6, "c", cupid.EventCreated))
	if sub, _, known := h.subscribe("a", 0); known {
		t.Fatal("a's history outlived the bound of 2")
	} else {
		h.unsubscribe(sub)
	}
	for _, id := range []string{"b", "c"} {
		sub, past, known := h.subscribe(id, 0)
		h.unsubscribe(sub)
		if !known || len(past) == 0 {
			t.Fatalf("%s: known=%v past=%v", id, known, seqs(past))
		}
	}
}

// TestHubSubscribeThenPublish: an event published after the subscription
// reaches it, whether or not the history held the earlier ones.
func TestHubSubscribeThenPublish(t *testing.T) {
	h := newHub(4)
	h.Publish(ev(1, "a", cupid.EventCreated))
	sub, past, known := h.subscribe("a", 0)
	defer h.unsubscribe(sub)
	if !known || !slices.Equal(seqs(past), []int64{1}) {
		t.Fatalf("known=%v past=%v", known, seqs(past))
	}
	h.Publish(ev(2, "a", cupid.EventMatched))
	select {
	case got := <-sub.ch:
		if got.Seq != 2 {
			t.Fatalf("got seq %d, want 2", got.Seq)
		}
	default:
		t.Fatal("the matched event did not reach the subscription")
	}
	sub2, past2, _ := h.subscribe("a", 0)
	defer h.unsubscribe(sub2)
	if !slices.Equal(seqs(past2), []int64{1, 2}) {
		t.Fatalf("history after the match: %v", seqs(past2))
	}
}

// The hub tells a ticket's key and age from its history while the ticket
// has had no event since it was created, and only for a ticket whose key
// it was given: a watcher of any other asks the store.
func TestHubWaiting(t *testing.T) {
	h := newHub(4)
	key := cupid.QueueKey{Queue: "duel", Custom: "eu"}
	h.Publish(ev(1, "a", cupid.EventCreated), ev(2, "b", cupid.EventCreated), ev(3, "c", cupid.EventCreated))
	h.setKeys([]*cupid.Ticket{{ID: "a", Key: key}, {ID: "b", Key: key}, {ID: "gone", Key: key}})
	h.Publish(ev(4, "b", cupid.EventMatched))
	for _, c := range []struct {
		name   string
		ticket string
		seq    int64
		ok     bool
	}{
		{"created, nothing since", "a", 1, true},
		{"not its created event", "a", 2, false},
		{"an event since", "b", 2, false},
		{"no key given (another node's)", "c", 3, false},
		{"no history", "gone", 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			k, at, ok := h.waiting(c.ticket, c.seq)
			if ok != c.ok || (ok && (k != key || !at.Equal(time.Unix(c.seq, 0)))) {
				t.Fatalf("waiting(%s, %d) = %v %v %v", c.ticket, c.seq, k, at, ok)
			}
		})
	}
	// Keys are interned: two tickets of a key share one.
	if h.ring[h.hist["a"]].key != h.ring[h.hist["b"]].key {
		t.Fatal("a key held twice")
	}
}
