package ticketsvc

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/memstore"
)

// batchStore records the size of every intake batch, and holds the first
// one until released, so a test knows what waits behind it.
type batchStore struct {
	*memstore.Store
	mu      sync.Mutex
	batches []int
	hold    chan struct{} // closed to release the first batch
	held    chan struct{} // closed once the first batch is being stored
}

func (b *batchStore) CreateTickets(ctx context.Context, ts []cupid.NewTicket) ([]cupid.Created, []cupid.Event, error) {
	b.mu.Lock()
	b.batches = append(b.batches, len(ts))
	first := len(b.batches) == 1
	b.mu.Unlock()
	if first {
		close(b.held)
		<-b.hold
	}
	return b.Store.CreateTickets(ctx, ts)
}

func (b *batchStore) sizes() []int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]int(nil), b.batches...)
}

// The commit window: a create that arrives while a batch is being stored
// is evidence of other callers, so its batch waits for company and the
// creates that come meanwhile share its commit; one caller creating one
// ticket after another is never kept waiting. The window is an hour and a
// batch closes at commitEnough tickets, so the counts do not depend on
// timing (a batch that waited for company that never came would hang).
func TestCommitWindowGathersConcurrentCreates(t *testing.T) {
	for _, c := range []struct {
		name       string
		concurrent bool
		want       []int // batch sizes
	}{
		{"callers at once", true, []int{1, commitEnough}},
		{"one caller", false, []int{1, 1, 1, 1, 1, 1, 1, 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := &batchStore{Store: memstore.New(), hold: make(chan struct{}), held: make(chan struct{})}
			if !c.concurrent {
				close(st.hold)
			}
			svc, err := New(Options{Store: st, Documents: st, Queues: queues(0), Logger: slog.New(slog.DiscardHandler), CommitWindow: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			if err := svc.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(svc.Close)
			ctx := context.Background()
			var wg sync.WaitGroup
			create := func(i int) {
				defer wg.Done()
				// Matches are committed apart from the intake: only its
				// batches are counted.
				if _, _, err := svc.CreateTicket(ctx, ticket("duel", 1500, fmt.Sprintf("p%d", i)), false); err != nil {
					t.Error(err)
				}
			}
			if !c.concurrent {
				for i := range len(c.want) {
					wg.Add(1)
					create(i)
				}
			} else {
				wg.Add(1)
				go create(0) // alone: stored at once, and held there
				<-st.held
				wg.Add(1)
				go create(1) // arrives while the first batch is being stored
				for len(svc.intake) == 0 {
					time.Sleep(time.Millisecond)
				}
				close(st.hold)
				for i := 2; i <= commitEnough; i++ {
					wg.Add(1)
					go create(i)
				}
				wg.Wait()
			}
			if got := st.sizes(); fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Fatalf("batches %v, want %v", got, c.want)
			}
		})
	}
}

// A batch waits only on evidence of other callers: a create waiting when
// the batch was taken, or company the last wait gathered; never past
// commitEnough tickets, and never with the window off.
func TestCommitWindowWaitsOnEvidence(t *testing.T) {
	for _, c := range []struct {
		name    string
		max     time.Duration
		company bool
		queued  bool
		n       int
		want    bool
	}{
		{"lone create", time.Millisecond, false, false, 1, false},
		{"a create was waiting", time.Millisecond, false, true, 1, true},
		{"the last wait gathered company", time.Millisecond, true, false, 1, true},
		{"enough already", time.Millisecond, true, true, commitEnough, false},
		{"window off", 0, true, true, 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := commitWindow{max: c.max, enough: commitEnough, company: c.company}
			if got := w.wait(c.queued, c.n); got != c.want {
				t.Fatalf("wait = %v, want %v", got, c.want)
			}
		})
	}
}
