package pairing

import (
	"slices"
	"time"
)

// The round history.
//
// Every computed round is a RoundRecord, numbered by Seq, and announced to
// the organiser (KindRoundRecorded) with the record. The event does not
// keep the records themselves: they would make the event's state, which
// the server rewrites after every change, grow with every round. The
// server stores each record once, on its own, and the event keeps only
// which rounds are to be kept (Kept), within HistoryLimits; rounds that
// fall out are handed to the server (TakeDropped) to delete.

// RoundRecord is one computed round as it happened: who was in the lobby,
// who went to which room with whom, and who sat out. Rounds that found no
// pair at all are recorded too (Round is then 0), so that an organiser can
// see when and why an event stalled.
type RoundRecord struct {
	// Seq numbers every computed round of the event from 1, including
	// those that found no pair; a watcher replays from a Seq.
	Seq int `json:"seq"`
	// Round is the round's number (the event's round counter), or 0 when
	// nobody could be paired.
	Round int       `json:"round,omitempty"`
	At    time.Time `json:"at"`
	// Rooms are the pairs and the trio seated, by room.
	Rooms []RoomPair `json:"rooms,omitempty"`
	// SatOut are the people of the lobby not seated, sorted.
	SatOut []string `json:"sat_out,omitempty"`
}

// Lobby returns everyone who was in the lobby when the round was computed,
// sorted: the people seated and those who sat out.
func (r RoundRecord) Lobby() []string {
	out := slices.Clone(r.SatOut)
	for _, p := range r.Rooms {
		out = append(out, p.A, p.B)
		if p.C != "" {
			out = append(out, p.C)
		}
	}
	slices.Sort(out)
	return out
}

// names counts the keys a record holds: what it costs to keep.
func (r RoundRecord) names() int {
	n := len(r.SatOut)
	for _, p := range r.Rooms {
		n += 2
		if p.C != "" {
			n++
		}
	}
	return n
}

// KeptRound is a round whose record is kept, and its size in keys.
type KeptRound struct {
	Seq   int `json:"seq"`
	Names int `json:"names"`
}

// HistoryLimits bound the rounds whose records are kept; the oldest are
// dropped first, and the latest round is always kept whatever its size.
type HistoryLimits struct {
	// Rounds is the most rounds kept.
	Rounds int
	// Names is the most keys kept over all rounds (a round of 10,000
	// people holds 10,000).
	Names int
}

// DefaultHistoryLimits are the limits of an event whose server sets none:
// 1,000 rounds of an 80-person event, the last 100 of a 10,000-person one
// (about 15 MB of records).
var DefaultHistoryLimits = HistoryLimits{Rounds: 1_000, Names: 1_000_000}

// SetHistoryLimits changes the bounds of the round history (a zero field
// keeps its default) and drops what no longer fits. Limits are the
// server's, not part of the event's state.
func (e *Event) SetHistoryLimits(l HistoryLimits) {
	if l.Rounds <= 0 {
		l.Rounds = DefaultHistoryLimits.Rounds
	}
	if l.Names <= 0 {
		l.Names = DefaultHistoryLimits.Names
	}
	e.limits = l
	e.trimHistory()
}

// record keeps a computed round and tells the organiser, with the record.
func (e *Event) record(r RoundRecord) {
	e.kept = append(e.kept, KeptRound{Seq: r.Seq, Names: r.names()})
	e.trimHistory()
	e.notify(Notification{Kind: KindRoundRecorded, Seq: r.Seq, Round: r.Round, Record: &r})
}

func (e *Event) trimHistory() {
	names := 0
	for _, r := range e.kept {
		names += r.Names
	}
	drop := 0
	for len(e.kept)-drop > 1 && (len(e.kept)-drop > e.limits.Rounds || names > e.limits.Names) {
		names -= e.kept[drop].Names
		e.dropped = append(e.dropped, e.kept[drop].Seq)
		drop++
	}
	if drop > 0 {
		e.kept = slices.Delete(e.kept, 0, drop)
	}
}

// Kept returns the sequence numbers of the first and last rounds whose
// records are kept (0, 0 before any round).
func (e *Event) Kept() (first, last int) {
	if len(e.kept) == 0 {
		return 0, 0
	}
	return e.kept[0].Seq, e.kept[len(e.kept)-1].Seq
}

// TakeDropped returns the rounds that fell out of the history since the
// last call, for the server to delete their records.
func (e *Event) TakeDropped() []int {
	out := e.dropped
	e.dropped = nil
	return out
}

// Seq returns the number of rounds computed so far, including those that
// found no pair.
func (e *Event) Seq() int { return e.seq }

// Stale reports whether the last round found nobody in the lobby who could
// be paired and nothing has changed since that could allow a pair.
func (e *Event) Stale() bool { return e.stale }
