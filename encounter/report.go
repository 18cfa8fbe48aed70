package encounter

import (
	"fmt"
	"slices"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// Reports. A player reports another he shared a match with (any meeting
// in his history: a queue's match, an attack, a round), with one of the
// configured reasons. Each reason has a threshold: when that many
// different players have reported someone for it within the window, he
// is marked low priority (the ratings' low-priority queue). One report
// per reporter, player and match: reporting again changes nothing.

// Limits of reports.
const (
	// MaxReasons bounds the configured reasons.
	MaxReasons = 32
	// MaxReportsRead bounds the reports of one player read to count them:
	// a threshold above it could never be reached.
	MaxReportsRead = 1_000
	// MaxReportNote bounds a report's free text.
	MaxReportNote = 500
)

// Report is one report of a player.
type Report struct {
	Reporter string    `json:"reporter"`
	Player   string    `json:"player"`
	Ref      string    `json:"ref"`
	Reason   string    `json:"reason"`
	Note     string    `json:"note,omitempty"`
	At       time.Time `json:"at"`
}

// ReportRules are the configured reasons, each with its threshold, and
// the window reports count within.
type ReportRules struct {
	Thresholds map[string]int
	Within     time.Duration
}

// Check refuses rules no report could use, naming the field.
func (r ReportRules) Check() error {
	if len(r.Thresholds) > MaxReasons {
		return cupid.Invalid("reasons", "at most %d reasons, got %d", MaxReasons, len(r.Thresholds))
	}
	for _, reason := range cupid.SortedKeys(r.Thresholds) {
		if err := CheckID("reasons", reason); err != nil {
			return err
		}
		if n := r.Thresholds[reason]; n < 1 || n > MaxReportsRead {
			return cupid.Invalid("reasons."+reason, "a threshold between 1 and %d, got %d", MaxReportsRead, n)
		}
	}
	if r.Within <= 0 {
		return cupid.Invalid("within", "must be more than 0")
	}
	return nil
}

// NewReport checks a report against the reporter's history (newest first)
// and the rules: the reason is configured, the reporter met the player in
// the match ref, and that was within the window.
func NewReport(h []cupid.Encounter, rules ReportRules, reporter, player, ref, reason, note string, now time.Time) (Report, error) {
	for _, f := range []struct{ field, v string }{{"player_id", reporter}, {"other_id", player}, {"ref", ref}} {
		if err := CheckID(f.field, f.v); err != nil {
			return Report{}, err
		}
	}
	if reporter == player {
		return Report{}, cupid.Invalid("other_id", "a player cannot report himself")
	}
	if _, ok := rules.Thresholds[reason]; !ok {
		return Report{}, cupid.Invalid("reason", "must be one of %v, got %q", cupid.SortedKeys(rules.Thresholds), reason)
	}
	if len(note) > MaxReportNote {
		return Report{}, cupid.Invalid("note", "at most %d bytes, got %d", MaxReportNote, len(note))
	}
	i := slices.IndexFunc(h, func(e cupid.Encounter) bool { return e.Player == reporter && e.Other == player && e.Ref == ref })
	if i < 0 {
		return Report{}, cupid.NotFound("ref", "%q did not meet %q in %q", reporter, player, ref)
	}
	if now.Sub(h[i].At) > rules.Within {
		return Report{}, cupid.Errorf(cupid.CodeConflict, "ref", "%q was at %s: a report is taken within %s of it", ref, h[i].At.Format(time.RFC3339), rules.Within)
	}
	return Report{Reporter: reporter, Player: player, Ref: ref, Reason: reason, Note: note, At: now.UTC()}, nil
}

// Reporters counts the different players who reported someone for reason
// within the window, from his reports.
func (r ReportRules) Reporters(reports []Report, reason string, now time.Time) int {
	seen := map[string]bool{}
	for _, rep := range reports {
		if rep.Reason == reason && !rep.At.Before(now.Add(-r.Within)) {
			seen[rep.Reporter] = true
		}
	}
	return len(seen)
}

// Crossed reports whether adding a report made its reason's count reach
// the threshold: count is the reporters after it, before those before it.
func (r ReportRules) Crossed(reason string, before, after int) bool {
	t := r.Thresholds[reason]
	return before < t && after >= t
}

// LowPriorityReason is the reason a low-priority mark from reports
// carries.
func LowPriorityReason(reason string, reporters int) string {
	return fmt.Sprintf("reported for %s by %d players", reason, reporters)
}

// ReportSummary is what an operator sees of a set of reports: how many
// per reason, and the players whose reports reach a reason's threshold
// (those the rules mark low priority).
type ReportSummary struct {
	// ByReason counts the reports of each reason (within the window).
	ByReason map[string]int `json:"by_reason"`
	// Over lists each player and reason whose different reporters within
	// the window reach the threshold, by player then reason.
	Over []OverThreshold `json:"over"`
}

// OverThreshold is one player over one reason's threshold.
type OverThreshold struct {
	Player    string `json:"player"`
	Reason    string `json:"reason"`
	Reporters int    `json:"reporters"`
	Threshold int    `json:"threshold"`
}

// Summarize counts reports by reason and finds the players over a
// threshold, by the same count (Reporters) that marks them.
func (r ReportRules) Summarize(reports []Report, now time.Time) ReportSummary {
	out := ReportSummary{ByReason: map[string]int{}, Over: []OverThreshold{}}
	byPlayer := map[string][]Report{}
	for _, rep := range reports {
		if rep.At.Before(now.Add(-r.Within)) {
			continue
		}
		out.ByReason[rep.Reason]++
		byPlayer[rep.Player] = append(byPlayer[rep.Player], rep)
	}
	for _, player := range cupid.SortedKeys(byPlayer) {
		for _, reason := range cupid.SortedKeys(r.Thresholds) {
			n := r.Reporters(byPlayer[player], reason, now)
			if t := r.Thresholds[reason]; n >= t {
				out.Over = append(out.Over, OverThreshold{Player: player, Reason: reason, Reporters: n, Threshold: t})
			}
		}
	}
	return out
}
