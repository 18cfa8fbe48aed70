// Package cluster spreads pools over the nodes that share one database. Each
// node announces itself with a heartbeat; every node computes, from the list
// of live nodes, which node should own each pool (rendezvous hashing, so a
// node joining or leaving moves only the pools it gains or loses); a node
// takes the leases of the pools it should own and gives up those it should
// not. The database decides who holds a lease (its clock, its row locks);
// this package only keeps asking. PostgreSQL is the one source of truth:
// nothing here votes, elects or gossips.
//
// A lease carries a fencing token. The node hands it to the service
// (Handler.Gain), whose pool writes carry it (cupid.Fence), and the database
// refuses them once the lease has moved on. A node stops acting for a pool
// (Handler.Lose) before it gives the lease up, when the lease moved to
// another node, and when it could not renew it for most of its time.
//
// Join runs a server as a node: it feeds the database's notifications of
// other nodes' writes to the ticket service (changes.go), gives the leases
// it gains to the services that act for them, and tells the Forwarder
// (forward.go) where the speed-dating events run, so any node can take
// their calls. cmd/cupid only constructs the parts and calls Join.
package cluster

import (
	"context"
	"hash/fnv"
	"log/slog"
	"slices"
	"sync"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// Store is what the node needs of the shared database.
type Store interface {
	Heartbeat(ctx context.Context, node, addr string) error
	LeaveCluster(ctx context.Context, node string) error
	// Members lists the ids of the nodes seen within the last `within`.
	Members(ctx context.Context, within time.Duration) ([]string, error)
	AcquireLease(ctx context.Context, name, node string, ttl time.Duration) (token int64, ok bool, err error)
	ReleaseLease(ctx context.Context, name, node string, token int64) error
}

// Handler acts on what the node holds. Gain starts acting for a pool under
// the fence; Lose stops and returns only once nothing more will be written
// under the pool's fence. Both run on the node's goroutine, one at a time.
type Handler interface {
	Gain(name string, f cupid.Fence)
	Lose(name string)
}

// Options configure a node.
type Options struct {
	ID   string
	Addr string
	// Names are the leases the cluster shares out (one per pool).
	Names []string
	// TTL is how long a lease and a heartbeat last without renewal: the
	// longest a dead node keeps its pools. The node renews every TTL/4.
	TTL    time.Duration
	Logger *slog.Logger
}

// Node is this process's part in the cluster.
type Node struct {
	o     Options
	store Store
	h     Handler
	log   *slog.Logger

	mu   sync.Mutex
	held map[string]holding
	// dropped are names whose writes the database refused (Fenced):
	// handled on the next round.
	dropped map[string]bool
	wake    chan struct{}
}

type holding struct {
	token   int64
	renewed time.Time // local clock, when the database last confirmed
}

// New makes a node; Run drives it.
func New(o Options, store Store, h Handler) *Node {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Node{o: o, store: store, h: h, log: o.Logger, held: map[string]holding{}, dropped: map[string]bool{}, wake: make(chan struct{}, 1)}
}

// Owner returns which of members should own name: the member with the
// highest hash of (name, member). Every node computes the same answer from
// the same list.
func Owner(name string, members []string) string {
	var best string
	var bestScore uint64
	for _, m := range members {
		h := fnv.New64a()
		h.Write([]byte(name))
		h.Write([]byte{0})
		h.Write([]byte(m))
		if s := h.Sum64(); best == "" || s > bestScore || (s == bestScore && m < best) {
			best, bestScore = m, s
		}
	}
	return best
}

// Run takes part in the cluster until ctx ends, then gives up every lease
// (after Lose) and leaves, so the other nodes take over at once.
func (n *Node) Run(ctx context.Context) {
	t := time.NewTicker(n.o.TTL / 4)
	defer t.Stop()
	for {
		// A round's statements are not cut short by the node's end: a
		// heartbeat or lease call cancelled in flight may still run on
		// the database after leave has removed the node or released
		// the lease, and bring them back (a stopped node then looks
		// alive for the TTL). Each round has the lease's TTL at most.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), n.o.TTL)
		n.Round(rctx)
		cancel()
		select {
		case <-ctx.Done():
			n.leave()
			return
		case <-t.C:
		case <-n.wake:
		}
	}
}

// Fenced tells the node that the database refused a write for name: the
// lease moved or lapsed. The node stops acting for it at once and asks for
// it again on its next round.
func (n *Node) Fenced(name string) {
	n.mu.Lock()
	n.dropped[name] = true
	n.mu.Unlock()
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// Holds reports the token of a lease the node holds.
func (n *Node) Holds(name string) (int64, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	h, ok := n.held[name]
	return h.token, ok
}

// Held lists the names the node holds, in order.
func (n *Node) Held() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return cupid.SortedKeys(n.held)
}

// Round does one round: heartbeat, the members, then for each name take,
// keep or give up its lease. Exported for tests that drive the node step by
// step.
func (n *Node) Round(ctx context.Context) {
	now := time.Now()
	n.mu.Lock()
	dropped := n.dropped
	n.dropped = map[string]bool{}
	n.mu.Unlock()
	for _, name := range cupid.SortedKeys(dropped) {
		if h, ok := n.get(name); ok {
			n.log.Warn("the database refused a write under our lease; stopping the pool", "lease", name, "token", h.token)
			n.lose(name)
		}
	}
	if err := n.store.Heartbeat(ctx, n.o.ID, n.o.Addr); err != nil {
		n.log.Error("cluster heartbeat failed", "err", err)
		n.expireUnrenewed(now)
		return
	}
	members, err := n.store.Members(ctx, n.o.TTL)
	if err != nil {
		n.log.Error("listing cluster members failed", "err", err)
		n.expireUnrenewed(now)
		return
	}
	if !slices.Contains(members, n.o.ID) {
		members = append(members, n.o.ID)
	}
	for _, name := range n.o.Names {
		mine := Owner(name, members) == n.o.ID
		h, have := n.get(name)
		if !mine {
			if have {
				n.lose(name)
				if err := n.store.ReleaseLease(ctx, name, n.o.ID, h.token); err != nil {
					n.log.Error("giving up a lease failed; it will lapse", "lease", name, "err", err)
				}
				n.log.Info("handed a pool over", "lease", name, "members", len(members))
			}
			continue
		}
		token, ok, err := n.store.AcquireLease(ctx, name, n.o.ID, n.o.TTL)
		switch {
		case err != nil:
			n.log.Error("renewing a lease failed", "lease", name, "err", err)
		case !ok:
			// Another node still holds it (it has not seen us yet, or it
			// died and its lease has not lapsed): ask again next round.
			if have {
				n.lose(name)
			}
		case have && token == h.token:
			n.set(name, holding{token: token, renewed: now})
		default:
			if have {
				n.lose(name) // lapsed and taken again: the old token is void
			}
			n.set(name, holding{token: token, renewed: now})
			n.log.Info("took a pool", "lease", name, "token", token)
			n.h.Gain(name, cupid.Fence{Lease: name, Holder: n.o.ID, Token: token})
		}
	}
	n.expireUnrenewed(now)
}

// expireUnrenewed stops acting for leases the database has not confirmed
// for three quarters of their time: by the time they lapse there, this node
// has stopped writing (and the fence refuses what it might still try).
func (n *Node) expireUnrenewed(now time.Time) {
	n.mu.Lock()
	var late []string
	for name, h := range n.held {
		if now.Sub(h.renewed) > n.o.TTL*3/4 {
			late = append(late, name)
		}
	}
	n.mu.Unlock()
	slices.Sort(late)
	for _, name := range late {
		n.log.Warn("could not renew a lease in time; stopping its pool", "lease", name)
		n.lose(name)
	}
}

func (n *Node) get(name string) (holding, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	h, ok := n.held[name]
	return h, ok
}

func (n *Node) set(name string, h holding) {
	n.mu.Lock()
	n.held[name] = h
	n.mu.Unlock()
}

func (n *Node) lose(name string) {
	n.h.Lose(name)
	n.mu.Lock()
	delete(n.held, name)
	n.mu.Unlock()
}

// leave gives every lease up and removes the node. The services stop what
// they ran first (however long a loaded machine takes), then the database
// hears it, with a few seconds for each call: a node that left cleanly must
// not look alive to the others (store copy waits for a silent database).
func (n *Node) leave() {
	type given struct {
		name  string
		token int64
	}
	var gone []given
	for _, name := range n.Held() {
		h, _ := n.get(name)
		n.lose(name)
		gone = append(gone, given{name, h.token})
	}
	for _, g := range gone {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := n.store.ReleaseLease(ctx, g.name, n.o.ID, g.token); err != nil {
			n.log.Error("giving up a lease failed; it will lapse", "lease", g.name, "err", err)
		}
		cancel()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := n.store.LeaveCluster(ctx, n.o.ID); err != nil {
		n.log.Error("leaving the cluster failed; the others will notice the silence", "err", err)
	}
}
