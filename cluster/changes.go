package cluster

import (
	"context"
	"log/slog"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/postgres"
)

// Queues is what a node needs of the ticket service: the leases of its
// queues, taken and given up (Handler), and the other nodes' writes, which
// reach it as the database's notifications.
type Queues interface {
	LeaseNames() []string
	Gain(name string, f cupid.Fence)
	Lose(name string)
	// SetFencedHandler names who to tell when the database refused a
	// pool's write for its fence: the node, which gives the lease up.
	SetFencedHandler(func(lease string))
	// Changed acts on ticket events other nodes stored, by sequence
	// number, in order.
	Changed(ctx context.Context, seqs []int64) error
	// Resync catches up after notifications were lost.
	Resync(ctx context.Context)
	// RulesetChanged reloads a queue's ruleset replaced through another
	// node.
	RulesetChanged(ctx context.Context, queue string) error
	// MatchLogGrew acts on a queue's match events numbered from to to.
	MatchLogGrew(ctx context.Context, queue string, from, to int64, kinds []string)
}

// maxChangeBatch bounds the ticket events read at once.
const maxChangeBatch = 4096

// dispatchChanges hands the database's notifications to the ticket service
// in the order they came until changes is closed. The ticket events of all
// the notifications queued at one moment are read together (one query for
// many commits when they come fast); a notification of another kind first
// flushes the events before it, so nothing is told out of order.
func dispatchChanges(ctx context.Context, log *slog.Logger, q Queues, changes <-chan postgres.Change) {
	var seqs []int64
	flush := func() {
		if len(seqs) == 0 {
			return
		}
		if err := q.Changed(ctx, seqs); err != nil && ctx.Err() == nil {
			log.Error("acting on other nodes' writes failed; catching up", "err", err)
			q.Resync(ctx)
		}
		seqs = seqs[:0]
	}
	for c := range changes {
		for more := true; more; {
			switch {
			case c.Resync:
				flush()
				log.Warn("lost the database's notifications for a while; catching up")
				q.Resync(ctx)
			case c.Ruleset != "":
				flush()
				if err := q.RulesetChanged(ctx, c.Ruleset); err != nil && ctx.Err() == nil {
					log.Error("reading a ruleset replaced through another node failed", "queue", c.Ruleset, "err", err)
				}
			case c.Queue != "":
				// Match watchers re-read the log; the ticket events
				// before it go out first.
				flush()
				q.MatchLogGrew(ctx, c.Queue, c.From, c.To, c.Kinds)
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
