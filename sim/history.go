package sim

import (
	"time"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/encounter"
	"github.com/cupid-match/cupid/ruleset"
)

// The encounter history in a run (Config.History).
//
// A queue whose tickets the server fills from the history ("encounters:
// queues: [{name, met_within}]") gets each player's blocked, avoided and
// met lists at intake, and every match it forms goes into its players'
// histories. A run with History does the same around the engine, with the
// server's own pure code (package encounter): a ticket's met list is
// encounter.MetInQueue over its players' histories, bounded as the store's
// read is (encounter.Window), and a match is recorded as
// encounter.QueueMeeting's encounters. The simulator has no block or avoid
// lists: those are filled empty.
//
// Then it checks the promise a ruleset makes with a player_ids rule over
// met: no two players meet again within MetWithin while the rule applies,
// that is while the match's anchor has waited less than the rule's
// disable_after. Every pair of opponents who had met within MetWithin
// (read from the history just before the match is recorded) is a repeat;
// a repeat whose anchor had waited less than disable_after broke the
// rule. The report counts both (HistoryReport).

// History turns the encounter history on for a run's rulesets.
type History struct {
	// MetWithin is the queue's met_within: how far back a ticket's met
	// list reaches.
	MetWithin time.Duration
	// Window bounds each player's history as the server's does
	// (encounter.DefaultWindow when zero).
	Window encounter.Window
}

// HistoryReport is what the history saw in one run.
type HistoryReport struct {
	// MetWithinSeconds is the queue's met_within.
	MetWithinSeconds float64 `json:"met_within_seconds"`
	// DisableAfterSeconds is the met rule's disable_after (0: the rule
	// never relaxes); Rule is false when the ruleset has no rule over met.
	Rule                bool    `json:"rule"`
	DisableAfterSeconds float64 `json:"disable_after_seconds"`
	// Matches and Pairs count the matches recorded and their pairs of
	// opponents.
	Matches int `json:"matches"`
	Pairs   int `json:"opponent_pairs"`
	// Repeats are pairs of opponents who had met within MetWithin;
	// Relaxed those the rule let through because it no longer applied
	// (the anchor had waited disable_after); Broken those it should have
	// kept apart. Broken is 0 when the rule holds.
	Repeats int `json:"repeats"`
	Relaxed int `json:"relaxed"`
	Broken  int `json:"broken"`
	// RelaxedShare is Relaxed / Pairs: how often the relaxation was used.
	RelaxedShare float64 `json:"relaxed_share"`
}

// history is the players' histories in one run, newest first.
type history struct {
	cfg     History
	rule    bool
	disable time.Duration
	players map[string][]cupid.Encounter
	rep     HistoryReport
}

func newHistory(cfg History, rs *ruleset.Compiled) *history {
	if cfg.Window == (encounter.Window{}) {
		cfg.Window = encounter.DefaultWindow
	}
	h := &history{cfg: cfg, players: map[string][]cupid.Encounter{}}
	for _, f := range rs.Filters {
		if f.Excludes == encounter.MetAttribute {
			h.rule, h.disable = true, f.DisableAfter
		}
	}
	h.rep = HistoryReport{MetWithinSeconds: cfg.MetWithin.Seconds(), Rule: h.rule, DisableAfterSeconds: h.disable.Seconds()}
	return h
}

// fill gives a ticket's players their lists at now, as intake does. The
// players are copied: a party's visits share them.
func (h *history) fill(pt *party, now time.Time) {
	t := pt.t
	players := make([]cupid.Player, len(t.Players))
	for i, p := range t.Players {
		attrs := append(cupid.Attributes(nil), p.Attributes...)
		attrs.Set(encounter.BlockedAttribute, cupid.Strings())
		attrs.Set(encounter.AvoidedAttribute, cupid.Strings())
		mine := h.cfg.Window.Bound(h.players[p.ID], now)
		attrs.Set(encounter.MetAttribute, cupid.Strings(encounter.MetInQueue(mine, t.Key.Queue, h.cfg.MetWithin, now)...))
		players[i] = cupid.Player{ID: p.ID, Attributes: attrs}
	}
	t.Players = players
}

// record checks a match's pairs against the history and then adds it.
func (h *history) record(f *formed, now int64) {
	at := Origin.Add(time.Duration(now))
	teams := make([][]string, len(f.teams))
	for i, team := range f.teams {
		for _, pt := range team {
			for _, p := range pt.t.Players {
				teams[i] = append(teams[i], p.ID)
			}
		}
	}
	queue := f.teams[0][0].t.Key.Queue
	ref := ""
	anchorWait := time.Duration(0)
	if f.prop != nil {
		ref = f.prop.AnchorID
		if a, ok := h.anchorArrival(f, f.prop.AnchorID); ok {
			anchorWait = time.Duration(now - a)
		}
	}
	q := encounter.Query{Within: h.cfg.MetWithin, Mode: encounter.ModeQueue, Place: queue, Side: encounter.SideOpponent}
	h.rep.Matches++
	for i, team := range teams {
		for _, a := range team {
			for _, other := range teams[i+1:] {
				for _, b := range other {
					h.rep.Pairs++
					if !encounter.Met(h.cfg.Window.Bound(h.players[a], at), b, q, at) {
						continue
					}
					h.rep.Repeats++
					if h.rule && h.disable > 0 && anchorWait >= h.disable {
						h.rep.Relaxed++
					} else {
						h.rep.Broken++
					}
				}
			}
		}
	}
	es, err := encounter.QueueMeeting(queue, "m"+ref, at, teams).Encounters()
	if err != nil {
		return // a player id the history cannot hold: the server records nothing either
	}
	for i := len(es) - 1; i >= 0; i-- {
		e := es[i]
		list := append([]cupid.Encounter{e}, h.players[e.Player]...)
		if len(list) > h.cfg.Window.Recent {
			list = list[:h.cfg.Window.Recent]
		}
		h.players[e.Player] = list
	}
}

// anchorArrival finds when the match's anchor ticket arrived.
func (h *history) anchorArrival(f *formed, id string) (int64, bool) {
	for _, team := range f.teams {
		for _, pt := range team {
			if pt.t.ID == id {
				return pt.arrived, true
			}
		}
	}
	return 0, false
}

func (h *history) report() *HistoryReport {
	r := h.rep
	if r.Pairs > 0 {
		r.RelaxedShare = round3(float64(r.Relaxed) / float64(r.Pairs))
	}
	return &r
}

// historyPool feeds a pool's tickets from the history and records its
// matches into it: the server's intake step and match follower around the
// engine.
type historyPool struct {
	pool
	h *history
}

func (p historyPool) add(pt *party) error {
	p.h.fill(pt, Origin.Add(time.Duration(pt.arrived)))
	return p.pool.add(pt)
}

func (p historyPool) step(now int64, emit func(*formed)) {
	p.pool.step(now, func(f *formed) {
		p.h.record(f, now)
		emit(f)
	})
}
