package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/postgres"
)

// recorder is the ticket service's side of the dispatch: it writes down
// each call, in order.
type recorder struct {
	calls []string
	// failChanged makes Changed fail (a read of the events that failed).
	failChanged bool
}

func (r *recorder) LeaseNames() []string            { return nil }
func (r *recorder) Gain(name string, _ cupid.Fence) { r.calls = append(r.calls, "gain "+name) }
func (r *recorder) Lose(name string)                { r.calls = append(r.calls, "lose "+name) }
func (r *recorder) SetFencedHandler(func(string))   {}
func (r *recorder) Resync(context.Context)          { r.calls = append(r.calls, "resync") }
func (r *recorder) RulesetChanged(_ context.Context, q string) error {
	r.calls = append(r.calls, "ruleset "+q)
	return nil
}
func (r *recorder) MatchLogGrew(_ context.Context, q string, from, to int64, kinds []string) {
	r.calls = append(r.calls, fmt.Sprintf("matches %s %d-%d %v", q, from, to, kinds))
}
func (r *recorder) Changed(_ context.Context, seqs []int64) error {
	r.calls = append(r.calls, fmt.Sprintf("events %v", seqs))
	if r.failChanged {
		return errors.New("database down")
	}
	return nil
}

// dispatch runs the dispatcher over changes that all wait in the channel
// when it starts, as when notifications come faster than they are read.
func dispatch(q Queues, changes ...postgres.Change) {
	ch := make(chan postgres.Change, len(changes))
	for _, c := range changes {
		ch <- c
	}
	close(ch)
	dispatchChanges(context.Background(), quiet, q, ch)
}

func TestDispatchKeepsOrderAndBatchesEvents(t *testing.T) {
	tests := []struct {
		name    string
		changes []postgres.Change
		fail    bool
		want    []string
	}{
		{
			name:    "queued ticket events are read at once",
			changes: []postgres.Change{{Seqs: []int64{1, 2}}, {Seqs: []int64{3}}},
			want:    []string{"events [1 2 3]"},
		},
		{
			name: "a match log, a ruleset or a resync flushes the events before it",
			changes: []postgres.Change{
				{Seqs: []int64{1}}, {Queue: "duel", From: 7, To: 9, Kinds: []string{"formed"}},
				{Seqs: []int64{2}}, {Ruleset: "duel"},
				{Seqs: []int64{3}}, {Resync: true},
				{Seqs: []int64{4}},
			},
			want: []string{
				"events [1]", "matches duel 7-9 [formed]",
				"events [2]", "ruleset duel",
				"events [3]", "resync",
				"events [4]",
			},
		},
		{
			name:    "a failed read catches up",
			changes: []postgres.Change{{Seqs: []int64{5}}},
			fail:    true,
			want:    []string{"events [5]", "resync"},
		},
		{
			name:    "nothing to read, nothing read",
			changes: []postgres.Change{{Queue: "duel", From: 1, To: 1}},
			want:    []string{"matches duel 1-1 []"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{failChanged: tc.fail}
			dispatch(r, tc.changes...)
			if !slices.Equal(r.calls, tc.want) {
				t.Errorf("calls\n got %q\nwant %q", r.calls, tc.want)
			}
		})
	}
}

func TestDispatchBoundsABatch(t *testing.T) {
	var changes []postgres.Change
	for i := range maxChangeBatch + 10 {
		changes = append(changes, postgres.Change{Seqs: []int64{int64(i + 1)}})
	}
	var sizes []int
	q := &countingQueues{recorder: &recorder{}, sizes: &sizes}
	dispatch(q, changes...)
	if want := []int{maxChangeBatch, 10}; !slices.Equal(sizes, want) {
		t.Errorf("batches of %v events, want %v", sizes, want)
	}
}

// countingQueues records only the size of each read of events.
type countingQueues struct {
	*recorder
	sizes *[]int
}

func (c *countingQueues) Changed(_ context.Context, seqs []int64) error {
	*c.sizes = append(*c.sizes, len(seqs))
	return nil
}

// events is the speed-dating service's side: whether it runs, and with
// which fence.
type events struct {
	running bool
	fence   cupid.Fence
	fail    error
}

func (e *events) RunEvents(ctx context.Context, f cupid.Fence) error {
	e.running, e.fence = e.fail == nil, f
	return e.fail
}

func (e *events) StopEvents() { e.running = false }

func TestServicesRouteLeases(t *testing.T) {
	q := &recorder{}
	ev := &events{}
	s := services{queues: q, events: ev, log: quiet}
	pairing := cupid.Fence{Lease: PairingLease, Holder: "n1", Token: 4}
	s.Gain("queue/duel", cupid.Fence{Lease: "queue/duel", Holder: "n1", Token: 3})
	s.Gain(PairingLease, pairing)
	if !ev.running || ev.fence != pairing {
		t.Errorf("after gaining the pairing lease the events run %v under %+v, want under %+v", ev.running, ev.fence, pairing)
	}
	s.Lose(PairingLease)
	s.Lose("queue/duel")
	if ev.running {
		t.Error("the events still run after the pairing lease was lost")
	}
	if want := []string{"gain queue/duel", "lose queue/duel"}; !slices.Equal(q.calls, want) {
		t.Errorf("ticket service calls %q, want %q", q.calls, want)
	}
	// A failed load leaves the events stopped; the node keeps the lease.
	ev.fail = errors.New("store down")
	s.Gain(PairingLease, pairing)
	if ev.running {
		t.Error("the events run after their load failed")
	}
}
