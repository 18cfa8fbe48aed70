package cupid

import (
	"errors"
)

// Fence is the proof of ownership that a node's writes for a pool carry when
// several nodes share one database: the lease the node holds on the pool's
// queue, and the token it was given when it took the lease. A store that
// coordinates nodes checks it inside the transaction of every write made on
// the fence's behalf and refuses the write (an error that is ErrFenced) when the lease has
// since passed to another node or lapsed, so a node that was paused or cut
// off past its lease can never commit a match, an expiry or a release that
// the new owner does not know of. Single-node stores ignore it.
type Fence struct {
	// Lease names the lease ("queue/duel").
	Lease string
	// Holder is the node that took it.
	Holder string
	// Token increases every time the lease changes hands.
	Token int64
}

// ErrFenced is what a store's refusal of a fenced write wraps: the lease
// changed hands or lapsed, and the node must stop acting for the pool.
var ErrFenced = errors.New("the lease on the pool is no longer held by this node")

// TicketChange is a stored ticket event with its ticket as it is now: what
// a node reads when the database tells it of another node's write.
type TicketChange struct {
	Event  Event
	Ticket *Ticket
}
