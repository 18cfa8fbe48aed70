package cluster

import (
	"context"
	"log/slog"
	"sync"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/postgres"
)

// Database is the shared database as a running node uses it: the leases
// (Store), the notifications of every node's writes, and who holds a lease.
// *postgres.Store is the one implementation.
type Database interface {
	Store
	Listen(ctx context.Context, ready func(), fn func(postgres.Change)) error
	LeaseHolder(ctx context.Context, name string) (node, addr string, ok bool, err error)
}

// Events is what a node needs of the speed-dating service: it runs the
// events while it holds PairingLease, and none otherwise.
type Events interface {
	// RunEvents loads the stored events and runs them; their writes carry
	// ctx's values (the lease's fence).
	RunEvents(ctx context.Context, fence cupid.Fence) error
	StopEvents()
}

// JoinOptions configure a running node.
type JoinOptions struct {
	// ID names the node among those sharing the database, Addr is where
	// the others reach it (to hand it the speed-dating calls).
	ID, Addr string
	// TTL is how long a lease lasts unrenewed.
	TTL    time.Duration
	Logger *slog.Logger
	// Forwarder, when not nil, is told where the speed-dating events and
	// the singletons of Routes run.
	Forwarder *Forwarder
	// Singletons run on one node at a time, each under the lease of its
	// name (retention: RetentionLease; the parties: partysvc.Lease).
	Singletons map[string]Singleton
	// Routes lists, for a singleton that serves API calls (the parties),
	// the path prefixes of those calls: the Forwarder hands them to the
	// node that holds its lease.
	Routes map[string][]string
}

// Singleton is work one node of the cluster does for all: started with
// the fence of its lease when the node takes it, stopped when it loses it.
type Singleton interface {
	Start(fence cupid.Fence)
	Stop()
}

// RetentionLease is the lease of the node that removes old data.
const RetentionLease = "retention"

// LobbiesLease is the lease of the node that runs the custom-game lobbies
// (a Singleton): the Forwarder hands the lobby calls to it.
const LobbiesLease = "lobbies"

// Join makes this process a node of the cluster: it listens to the
// database's notifications (other nodes' writes reach watchers and pools
// here through queues.Changed and the rest), then takes its share of the
// queues' leases and of PairingLease. The speed-dating events stop until
// the node takes that lease. The returned leave hands everything back
// (leases given up at once, so others take over without waiting for them
// to lapse) and may be called more than once. Join returns an error only
// when ctx ends before the node could listen.
func Join(ctx context.Context, o JoinOptions, db Database, queues Queues, events Events) (leave func(), err error) {
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	log = log.With("node", o.ID)
	events.StopEvents()
	cctx, cancel := context.WithCancel(context.Background())
	listening := make(chan struct{})
	// The listener hands notifications to a worker that takes everything
	// queued meanwhile at once.
	changes := make(chan postgres.Change, 4096)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		defer close(changes)
		_ = db.Listen(cctx, func() { close(listening) }, func(c postgres.Change) {
			select {
			case changes <- c:
			case <-cctx.Done():
			}
		})
	}()
	go func() {
		defer wg.Done()
		dispatchChanges(cctx, log, queues, changes)
	}()
	select {
	case <-listening:
	case <-ctx.Done():
		cancel()
		wg.Wait()
		return nil, ctx.Err()
	}
	names := append(queues.LeaseNames(), PairingLease)
	for name := range o.Singletons {
		names = append(names, name)
	}
	node := New(Options{ID: o.ID, Addr: o.Addr, Names: names, TTL: o.TTL, Logger: log}, db, services{queues: queues, events: events, singletons: o.Singletons, log: log})
	queues.SetFencedHandler(node.Fenced)
	if o.Forwarder != nil {
		o.Forwarder.join(o.ID, leaseOwner(db, node, PairingLease))
		if _, ok := o.Singletons[LobbiesLease]; ok {
			o.Forwarder.joinLobbies(leaseOwner(db, node, LobbiesLease))
		}
		for lease, paths := range o.Routes {
			o.Forwarder.route(lease, paths, leaseOwner(db, node, lease))
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		node.Run(cctx)
	}()
	log.Info("joined the cluster", "lease_ttl", o.TTL, "queues", len(names)-1)
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			wg.Wait()
		})
	}, nil
}

// services gives what the node holds to the part that runs it: the pairing
// lease to the speed-dating events, the queues' to the ticket service.
type services struct {
	queues     Queues
	events     Events
	singletons map[string]Singleton
	log        *slog.Logger
}

func (h services) Gain(name string, f cupid.Fence) {
	if one, ok := h.singletons[name]; ok {
		one.Start(f)
		return
	}
	if name != PairingLease {
		h.queues.Gain(name, f)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.events.RunEvents(ctx, f); err != nil {
		h.log.Error("loading the speed-dating events failed; they run on no node until the lease moves", "err", err)
	}
}

func (h services) Lose(name string) {
	if one, ok := h.singletons[name]; ok {
		one.Stop()
		return
	}
	if name != PairingLease {
		h.queues.Lose(name)
		return
	}
	h.events.StopEvents()
}

// leaseOwner tells the forwarder where what a lease gives (the
// speed-dating events, the lobbies, a singleton with Routes) runs: here, at
// another node's address, or nowhere for the moment. The database is asked
// at most every quarter second.
func leaseOwner(db Database, node *Node, lease string) Locate {
	var mu sync.Mutex
	var addr string
	var ok bool
	var at time.Time
	return func(ctx context.Context) (string, bool, bool) {
		if _, mine := node.Holds(lease); mine {
			return "", true, true
		}
		mu.Lock()
		defer mu.Unlock()
		if time.Since(at) > 250*time.Millisecond {
			_, a, held, err := db.LeaseHolder(ctx, lease)
			if err == nil {
				addr, ok, at = a, held && a != "", time.Now()
			}
		}
		return addr, false, ok
	}
}
