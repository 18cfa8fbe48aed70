package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/google/uuid"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/cluster"
	"github.com/cupid-match/cupid/postgres"
	"github.com/cupid-match/cupid/service/pairingsvc"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// defaultLeaseTTL is how long a node's hold on its queues lasts without
// renewal: the longest its queues wait for another node after it dies.
const defaultLeaseTTL = 5 * time.Second

// checkClusterFlags refuses the cluster flags without a shared store, where
// they would mean nothing.
func checkClusterFlags(f serveFlags) error {
	if _, pg := sharedStore(f.store); pg {
		if f.leaseTTL != 0 && f.leaseTTL < 500*time.Millisecond {
			return fmt.Errorf("--lease-ttl: at least 500ms (a node renews every quarter of it), got %s", f.leaseTTL)
		}
		return nil
	}
	if f.nodeID != "" {
		return fmt.Errorf("--node-id: only with a postgres:// --store, where several nodes share one database")
	}
	if f.advertise != "" {
		return fmt.Errorf("--advertise: only with a postgres:// --store, where several nodes share one database")
	}
	if f.leaseTTL != 0 && f.leaseTTL != defaultLeaseTTL {
		return fmt.Errorf("--lease-ttl: only with a postgres:// --store, where several nodes share one database")
	}
	return nil
}

// sharedStore reports whether --store names a database several nodes can
// share.
func sharedStore(s string) (string, bool) {
	for _, p := range []string{"postgres://", "postgresql://"} {
		if len(s) >= len(p) && s[:len(p)] == p {
			return s, true
		}
	}
	return "", false
}

// sharedOf returns the ticket service's view of a shared store, nil for a
// store of the node's own.
func sharedOf(s store) ticketsvc.SharedStore {
	if pg, ok := s.(*postgres.Store); ok {
		return pg
	}
	return nil
}

// startCluster makes this process a node of the cluster on a PostgreSQL
// store: it listens to the database's notifications (other nodes' writes
// reach watchers and pools here), then takes its share of the queues. The
// returned stop hands the queues back (their leases given up at once) and
// may be called more than once. On another store it does nothing.
func startCluster(ctx context.Context, f serveFlags, log *slog.Logger, s store, mm *ticketsvc.Service, pairings *pairingsvc.Service, fwd *pairingForwarder, addr string) (stop func(), err error) {
	pg, ok := s.(*postgres.Store)
	if !ok {
		return func() {}, nil
	}
	if f.advertise != "" {
		addr = f.advertise
	}
	// The speed-dating events run on the node that takes their lease;
	// until then this node runs none.
	pairings.StopEvents()
	id := f.nodeID
	if id == "" {
		host, _ := os.Hostname()
		id = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), uuid.NewString()[:8])
	}
	log = log.With("node", id)
	ttl := f.leaseTTL
	if ttl == 0 {
		ttl = defaultLeaseTTL
	}
	cctx, cancel := context.WithCancel(context.Background())
	listening := make(chan struct{})
	// The listener hands notifications to a worker that takes everything
	// queued meanwhile at once: one read of the database for many commits
	// when they come fast, in the order they came.
	changes := make(chan postgres.Change, 4096)
	var wg sync.WaitGroup
	wg.Add(3)
	go func() {
		defer wg.Done()
		defer close(changes)
		_ = pg.Listen(cctx, func() { close(listening) }, func(c postgres.Change) {
			select {
			case changes <- c:
			case <-cctx.Done():
			}
		})
	}()
	go func() {
		defer wg.Done()
		applyChanges(cctx, log, mm, changes)
	}()
	select {
	case <-listening:
	case <-ctx.Done():
		cancel()
		wg.Done()
		wg.Wait()
		return nil, ctx.Err()
	}
	names := append(mm.LeaseNames(), pairingLease)
	node := cluster.New(cluster.Options{ID: id, Addr: addr, Names: names, TTL: ttl, Logger: log}, pg, nodeHandler{mm: mm, pairings: pairings, log: log})
	mm.SetFencedHandler(node.Fenced)
	fwd.join(id, pairingOwner(pg, node))
	go func() {
		defer wg.Done()
		node.Run(cctx)
	}()
	log.Info("joined the cluster", "lease_ttl", ttl, "queues", len(mm.LeaseNames()))
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			wg.Wait()
		})
	}, nil
}

// maxChangeBatch bounds the ticket events read at once.
const maxChangeBatch = 4096

// applyChanges acts on the database's notifications in order, reading the
// events of all the notifications queued at a time together.
func applyChanges(ctx context.Context, log *slog.Logger, mm *ticketsvc.Service, changes <-chan postgres.Change) {
	var seqs []int64
	flush := func() {
		if len(seqs) == 0 {
			return
		}
		if err := mm.Changed(ctx, seqs); err != nil && ctx.Err() == nil {
			log.Error("acting on other nodes' writes failed; catching up", "err", err)
			mm.Resync(ctx)
		}
		seqs = seqs[:0]
	}
	for c := range changes {
		for more := true; more; {
			switch {
			case c.Resync:
				flush()
				log.Warn("lost the database's notifications for a while; catching up")
				mm.Resync(ctx)
			case c.Ruleset != "":
				flush()
				if err := mm.RulesetChanged(ctx, c.Ruleset); err != nil && ctx.Err() == nil {
					log.Error("reading a ruleset replaced through another node failed", "queue", c.Ruleset, "err", err)
				}
			case c.Queue != "":
				// Match watchers re-read the log; the ticket events
				// before it go out first.
				flush()
				mm.MatchLogGrew(ctx, c.Queue, c.From, c.To, c.Kinds)
			default:
				seqs = append(seqs, c.Seqs...)
			}
			if len(seqs) >= maxChangeBatch {
				flush()
			}
			select {
			case c, more = <-changes:
			default:
				more = false
			}
		}
		flush()
	}
}

// nodeHandler gives what the node holds to the part that runs it: the
// pairing lease to the speed-dating events, the queues' to the ticket
// service.
type nodeHandler struct {
	mm       *ticketsvc.Service
	pairings *pairingsvc.Service
	log      *slog.Logger
}

func (h nodeHandler) Gain(name string, f cupid.Fence) {
	if name != pairingLease {
		h.mm.Gain(name, f)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.pairings.RunEvents(cupid.WithFence(ctx, f)); err != nil {
		h.log.Error("loading the speed-dating events failed; they run on no node until the lease moves", "err", err)
	}
}

func (h nodeHandler) Lose(name string) {
	if name != pairingLease {
		h.mm.Lose(name)
		return
	}
	h.pairings.StopEvents()
}

// pairingOwner tells the forwarder where the speed-dating events run: here,
// at another node's address, or nowhere for the moment. The database is
// asked at most every quarter second.
func pairingOwner(pg *postgres.Store, node *cluster.Node) func(ctx context.Context) (string, bool, bool) {
	var mu sync.Mutex
	var addr string
	var ok bool
	var at time.Time
	return func(ctx context.Context) (string, bool, bool) {
		if _, mine := node.Holds(pairingLease); mine {
			return "", true, true
		}
		mu.Lock()
		defer mu.Unlock()
		if time.Since(at) > 250*time.Millisecond {
			_, a, held, err := pg.LeaseHolder(ctx, pairingLease)
			if err == nil {
				addr, ok, at = a, held && a != "", time.Now()
			}
		}
		return addr, false, ok
	}
}
