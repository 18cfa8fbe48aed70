package config

import (
	"fmt"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/encounter"
)

// Encounters configures the history of who met whom (docs/encounters.md):
// how much of it each player keeps, and the real-time queues whose
// matches are recorded and whose tickets carry their players' lists.
type Encounters struct {
	// Recent and Horizon bound a player's history: his last Recent
	// encounters, none older than Horizon (200 and 30 days when zero).
	Recent  int      `yaml:"recent"`
	Horizon Duration `yaml:"horizon"`
	// Queues are the real-time queues the history serves.
	Queues []EncounterQueue `yaml:"queues"`
	// Opponents are the opponent finders that read and write it.
	Opponents []EncounterFinder `yaml:"opponents"`
	// RematchWindow is how long after a match its two players may ask
	// for a rematch, and how long the rematch waits for the answer
	// (encounter.DefaultRematchWindow when zero).
	RematchWindow Duration `yaml:"rematch_window"`
	// Reports lets players report each other; none are taken without it.
	Reports *EncounterReports `yaml:"reports"`
}

// EncounterReports are the reasons a player may report another for, each
// with the number of different reporters within Within that marks the
// reported player low priority for LowPriorityGames rated games.
type EncounterReports struct {
	Reasons          []ReportReason `yaml:"reasons"`
	Within           Duration       `yaml:"within"`
	LowPriorityGames int            `yaml:"low_priority_games"`
}

// ReportReason is one reason players may give, and how many different
// reporters within the window mark the reported player.
type ReportReason struct {
	Name      string `yaml:"name"`
	Threshold int    `yaml:"threshold"`
}

// The reports' defaults.
const (
	DefaultReportWindow           = 7 * 24 * time.Hour
	DefaultReportLowPriorityGames = 5
	maxReportLowPriorityGames     = 10_000
)

// Rules are the reports' rules with the defaults filled in.
func (r *EncounterReports) Rules() encounter.ReportRules {
	rules := encounter.ReportRules{Thresholds: map[string]int{}, Within: time.Duration(r.Within)}
	for _, reason := range r.Reasons {
		rules.Thresholds[reason.Name] = reason.Threshold
	}
	if rules.Within == 0 {
		rules.Within = DefaultReportWindow
	}
	return rules
}

// Games is how many rated games a mark from reports lasts.
func (r *EncounterReports) Games() int {
	if r.LowPriorityGames == 0 {
		return DefaultReportLowPriorityGames
	}
	return r.LowPriorityGames
}

// EncounterFinder is an opponent finder whose confirmed attacks are
// recorded and whose queries keep blocked players apart.
type EncounterFinder struct {
	Name string `yaml:"name"`
	// NotSameDefenderWithin keeps a defender out of an attacker's offers
	// for this long after he attacked him; 0 allows him again at once.
	NotSameDefenderWithin Duration `yaml:"not_same_defender_within"`
}

// EncounterQueue is a real-time queue whose matches are recorded and
// whose tickets get their players' blocked, avoided and met lists.
type EncounterQueue struct {
	Name string `yaml:"name"`
	// MetWithin fills each player's "met" list with the opponents he met
	// in this queue within it; none when zero.
	MetWithin Duration `yaml:"met_within"`
}

// Window is the history's bounds with the defaults filled in.
func (e *Encounters) Window() encounter.Window {
	w := encounter.DefaultWindow
	if e.Recent != 0 {
		w.Recent = e.Recent
	}
	if e.Horizon != 0 {
		w.Horizon = time.Duration(e.Horizon)
	}
	return w
}

// encounterHorizon is how far back the history looks, the default when
// the configuration has no encounters section.
func (c *Config) encounterHorizon() time.Duration {
	if c.Encounters == nil {
		return encounter.DefaultWindow.Horizon
	}
	return c.Encounters.Window().Horizon
}

// checkEncounters validates the section and its queues' names.
func (c *Config) checkEncounters(doc *document) {
	e := c.Encounters
	if e == nil {
		return
	}
	if err := e.Window().Check(); err != nil {
		doc.report(cupid.Within("encounters", err))
	}
	if r := e.Reports; r != nil {
		switch {
		case len(r.Reasons) == 0:
			doc.report(cupid.Invalid("encounters.reports.reasons", "required: at least one reason with its threshold"))
		case len(r.Rules().Thresholds) < len(r.Reasons):
			doc.report(cupid.Invalid("encounters.reports.reasons", "a reason is named twice"))
		case r.Within < 0:
			doc.report(cupid.Invalid("encounters.reports.within", "must not be negative"))
		default:
			if err := r.Rules().Check(); err != nil {
				doc.report(cupid.Within("encounters.reports", err))
			}
		}
		if r.LowPriorityGames < 0 || r.LowPriorityGames > maxReportLowPriorityGames {
			doc.report(cupid.Invalid("encounters.reports.low_priority_games", "must be between 1 and %d (0 or absent means %d), got %d", maxReportLowPriorityGames, DefaultReportLowPriorityGames, r.LowPriorityGames))
		}
	}
	if w := time.Duration(e.RematchWindow); w < 0 || w > encounter.MaxRematchWindow {
		doc.report(cupid.Invalid("encounters.rematch_window", "must be between 0 and %s, got %s", encounter.MaxRematchWindow, w))
	}
	queues := map[string]bool{}
	for _, q := range c.Queues {
		queues[q.Name] = true
	}
	seen := map[string]bool{}
	for i, q := range e.Queues {
		field := fmt.Sprintf("encounters.queues[%d]", i)
		switch {
		case q.Name == "":
			doc.report(cupid.Invalid(field+".name", "required: a queue under queues"))
		case !queues[q.Name]:
			doc.report(cupid.Invalid(field+".name", "no queue %q under queues", q.Name))
		case seen[q.Name]:
			doc.report(cupid.Invalid(field+".name", "queue %q is named twice", q.Name))
		}
		seen[q.Name] = true
		if q.MetWithin < 0 || time.Duration(q.MetWithin) > e.Window().Horizon {
			doc.report(cupid.Invalid(field+".met_within", "must be between 0 and the history's horizon (%s)", e.Window().Horizon))
		}
	}
	finders := map[string]bool{}
	for _, f := range c.Opponents {
		finders[f.Name] = true
	}
	seen = map[string]bool{}
	for i, f := range e.Opponents {
		field := fmt.Sprintf("encounters.opponents[%d]", i)
		switch {
		case f.Name == "":
			doc.report(cupid.Invalid(field+".name", "required: a finder under opponents"))
		case !finders[f.Name]:
			doc.report(cupid.Invalid(field+".name", "no opponent finder %q under opponents", f.Name))
		case seen[f.Name]:
			doc.report(cupid.Invalid(field+".name", "finder %q is named twice", f.Name))
		}
		seen[f.Name] = true
		if f.NotSameDefenderWithin < 0 || time.Duration(f.NotSameDefenderWithin) > e.Window().Horizon {
			doc.report(cupid.Invalid(field+".not_same_defender_within", "must be between 0 and the history's horizon (%s)", e.Window().Horizon))
		}
	}
}
