// Package cupid holds the words of the matchmaking domain — tickets, players,
// parties, matches, teams, queue keys — and the interfaces that storage and
// notification adapters implement. It imports nothing of the project, so every
// other package can speak these words without pulling in a technology.
package cupid

import (
	"math"
	"sort"
	"strings"
	"time"
)

// TicketState is where a ticket is in its life. A ticket starts Waiting and
// ends in exactly one of the other states; it never leaves a final state.
type TicketState string

// The states of a ticket.
const (
	StateWaiting   TicketState = "waiting"
	StateMatched   TicketState = "matched"
	StateCancelled TicketState = "cancelled"
	StateExpired   TicketState = "expired"
)

// Final reports whether the state can no longer change.
func (s TicketState) Final() bool { return s != StateWaiting }

// QueueKey names a pool of tickets that may be matched together. Tickets with
// different keys never meet: the queue name picks the ruleset, the server
// version keeps incompatible clients apart (seed 002's GameServerVersion,
// seed 003's client_version) and the custom key splits a queue by anything
// else the game wants (seed 002's ExtMatchmakingKey).
type QueueKey struct {
	Queue   string `json:"queue"`
	Version string `json:"version,omitempty"`
	Custom  string `json:"custom,omitempty"`
}

// String renders the key as queue[/version][#custom]; it is the pool's name in
// logs and metrics.
func (k QueueKey) String() string {
	var b strings.Builder
	b.WriteString(k.Queue)
	if k.Version != "" {
		b.WriteString("/")
		b.WriteString(k.Version)
	}
	if k.Custom != "" {
		b.WriteString("#")
		b.WriteString(k.Custom)
	}
	return b.String()
}

// Value is one attribute value: a number, a string or a list of strings.
// Exactly one of the three is meaningful, as Kind says.
type Value struct {
	Kind    ValueKind `json:"kind"`
	Number  float64   `json:"number,omitempty"`
	String  string    `json:"string,omitempty"`
	Strings []string  `json:"strings,omitempty"`
}

// ValueKind tells which field of a Value is set.
type ValueKind uint8

// The kinds of attribute values.
const (
	KindNumber ValueKind = iota + 1
	KindString
	KindStrings
)

// Number makes a numeric Value.
func Number(f float64) Value { return Value{Kind: KindNumber, Number: f} }

// String makes a string Value.
func String(s string) Value { return Value{Kind: KindString, String: s} }

// Strings makes a string-list Value.
func Strings(s ...string) Value { return Value{Kind: KindStrings, Strings: s} }

// Player is one person in a ticket. Attributes carry skill, preferences and
// the reserved keys of seed 003 (role, cross_platform, …).
type Player struct {
	ID         string           `json:"id"`
	Attributes map[string]Value `json:"attributes,omitempty"`
}

// Ticket is a request to be matched: one player, or a party that must end up
// on the same team. The ticket's age counts from CreatedAt, which survives
// restarts so relaxation carries on where it was.
type Ticket struct {
	ID        string           `json:"id"`
	Key       QueueKey         `json:"key"`
	Players   []Player         `json:"players"`
	Latencies map[string]int32 `json:"latencies,omitempty"`
	// Attributes are ticket-wide values (seed 003 match options, for
	// instance); per-player values live on the players.
	Attributes map[string]Value `json:"attributes,omitempty"`
	RequestID  string           `json:"request_id,omitempty"`
	CreatedAt  time.Time        `json:"created_at"`
	ExpiresAt  time.Time        `json:"expires_at"`
	State      TicketState      `json:"state"`
	MatchID    string           `json:"match_id,omitempty"`
	UpdatedAt  time.Time        `json:"updated_at"`
}

// Wait is how long the ticket has waited at now.
func (t *Ticket) Wait(now time.Time) time.Duration {
	d := now.Sub(t.CreatedAt)
	if d < 0 {
		return 0
	}
	return d
}

// PlayerIDs lists the ticket's players in order.
func (t *Ticket) PlayerIDs() []string {
	ids := make([]string, len(t.Players))
	for i, p := range t.Players {
		ids[i] = p.ID
	}
	return ids
}

// Team is one side of a match: the tickets (and so parties) placed on it.
type Team struct {
	TicketIDs []string `json:"ticket_ids"`
	PlayerIDs []string `json:"player_ids"`
}

// Quality is a match's score in [0,1] and the per-criterion parts it was
// averaged from, so a studio can see why a match scored as it did.
type Quality struct {
	Score float64            `json:"score"`
	Parts map[string]float64 `json:"parts,omitempty"`
}

// Match is a set of tickets committed together. A ticket belongs to at most
// one match, ever.
type Match struct {
	ID        string    `json:"id"`
	Key       QueueKey  `json:"key"`
	Teams     []Team    `json:"teams"`
	Quality   Quality   `json:"quality"`
	CreatedAt time.Time `json:"created_at"`
	// Region is where the match should be hosted: the region every ticket
	// accepts with the lowest worst latency. Empty without latency rules.
	Region string `json:"region,omitempty"`
	// Roles maps each player to the role they play, when the ruleset has
	// role quotas.
	Roles map[string]string `json:"roles,omitempty"`
}

// TicketIDs lists every ticket of the match, team by team.
func (m *Match) TicketIDs() []string {
	var ids []string
	for _, t := range m.Teams {
		ids = append(ids, t.TicketIDs...)
	}
	return ids
}

// SortedKeys returns a map's keys in order; used wherever output must not
// depend on Go's randomised map iteration.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Finite reports whether f is a usable number (not NaN, not ±Inf).
func Finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
