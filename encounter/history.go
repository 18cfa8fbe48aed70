package encounter

import (
	"time"

	cupid "github.com/cupid-match/cupid"
)

// Window bounds a player's history: the most recent Recent encounters,
// none older than Horizon. The store keeps rows until the horizon; every
// read asks for at most Recent of them, so a player who plays all day
// costs the same to read as one who played once.
type Window struct {
	Recent  int
	Horizon time.Duration
}

// DefaultWindow is a history's bounds when the configuration says none:
// the last 200 encounters of the last 30 days.
var DefaultWindow = Window{Recent: 200, Horizon: 30 * 24 * time.Hour}

// Limits of a window a configuration may ask for.
const (
	MaxRecent  = 10_000
	MaxHorizon = 366 * 24 * time.Hour
)

// Check refuses a window out of bounds, naming the field.
func (w Window) Check() error {
	if w.Recent < 1 || w.Recent > MaxRecent {
		return cupid.Invalid("recent", "must be between 1 and %d, got %d", MaxRecent, w.Recent)
	}
	if w.Horizon <= 0 || w.Horizon > MaxHorizon {
		return cupid.Invalid("horizon", "must be more than 0 and at most %s, got %s", MaxHorizon, w.Horizon)
	}
	return nil
}

// Since is the oldest time a read at now asks for.
func (w Window) Since(now time.Time) time.Time { return now.Add(-w.Horizon) }

// Bound keeps the part of a history (newest first, as the store returns
// it) the window allows at now: within the horizon, at most Recent.
func (w Window) Bound(h []cupid.Encounter, now time.Time) []cupid.Encounter {
	since := w.Since(now)
	n := 0
	for n < len(h) && n < w.Recent && !h[n].At.Before(since) {
		n++
	}
	return h[:n]
}

// Query selects encounters of a history: those within Within of now (all
// of the history when zero), of a mode and a side when set.
type Query struct {
	Within time.Duration
	Mode   string
	Side   string
	// Place, when set, keeps the encounters at that place only (one
	// queue, one finder, one event series).
	Place string
}

func (q Query) keeps(e cupid.Encounter, now time.Time) bool {
	switch {
	case q.Within > 0 && e.At.Before(now.Add(-q.Within)):
		return false
	case q.Mode != "" && e.Mode != q.Mode:
		return false
	case q.Side != "" && e.Side != q.Side:
		return false
	case q.Place != "" && e.Place != q.Place:
		return false
	}
	return true
}

// Met reports whether a history (one player's) holds an encounter with
// other that the query keeps: "did I meet him in the last hour".
func Met(h []cupid.Encounter, other string, q Query, now time.Time) bool {
	for _, e := range h {
		if e.Other == other && q.keeps(e, now) {
			return true
		}
	}
	return false
}

// Others lists the distinct players a history met under the query, most
// recent first, at most limit (all when limit ≤ 0).
func Others(h []cupid.Encounter, q Query, now time.Time, limit int) []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range h {
		if limit > 0 && len(out) == limit {
			break
		}
		if seen[e.Other] || !q.keeps(e, now) {
			continue
		}
		seen[e.Other] = true
		out = append(out, e.Other)
	}
	return out
}

// Last returns the most recent encounter of a history with other that the
// query keeps, and whether there is one.
func Last(h []cupid.Encounter, other string, q Query, now time.Time) (cupid.Encounter, bool) {
	for _, e := range h {
		if e.Other == other && q.keeps(e, now) {
			return e, true
		}
	}
	return cupid.Encounter{}, false
}

// Revenge lists the attackers a player may strike back at: those who
// attacked him within the window (Clash of Clans gives 12 hours), most
// recent first, at most limit.
func Revenge(h []cupid.Encounter, within time.Duration, now time.Time, limit int) []string {
	return Others(h, Query{Within: within, Mode: ModeOpponent, Side: SideDefender}, now, limit)
}

// The list attributes the server fills on a ticket of a queue that reads
// the history (encountersvc's intake step), and a ruleset reads.
const (
	BlockedAttribute = "blocked"
	AvoidedAttribute = "avoided"
	MetAttribute     = "met"
)

// MetInQueue is a player's "met" list for a ticket of queue: the
// opponents his history (newest first) met there within within of now,
// most recent first, at most cupid.MaxListItems (what a ticket's list may
// hold). The server fills it at intake and the simulator the same way, so
// "not the same opponent within X" means one thing in both.
func MetInQueue(h []cupid.Encounter, queue string, within time.Duration, now time.Time) []string {
	return Others(h, Query{Within: within, Mode: ModeQueue, Place: queue, Side: SideOpponent}, now, cupid.MaxListItems)
}

// QueueMeeting is the meeting a real-time match of queue makes: its teams'
// players met, as opponents across teams and teammates within one.
func QueueMeeting(queue, ref string, at time.Time, teams [][]string) Meeting {
	return Meeting{Mode: ModeQueue, Place: queue, Ref: ref, At: at, Teams: teams}
}
