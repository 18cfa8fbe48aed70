package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	cupid "github.com/cupid-match/cupid"
)

// Retention is how long the store keeps each kind of data once it ended,
// and how hard retention works at removing the rest (docs/configuration.md,
// "retention"). What is live is never removed, however old.
type Retention struct {
	// Tickets keeps ended tickets and their events (7 days).
	Tickets Keep `yaml:"tickets"`
	// Matches keeps matches that are no longer live with their match log
	// entries and ready-check answers (30 days).
	Matches Keep `yaml:"matches"`
	// RatingHistory and RatingResults are kept for ever unless set.
	RatingHistory Keep `yaml:"rating_history"`
	RatingResults Keep `yaml:"rating_results"`
	// Encounters keeps the lines of the encounter history; by default as
	// long as the history looks back (encounters.horizon, 30 days).
	Encounters Keep `yaml:"encounters"`
	// Batch bounds the rows one transaction removes (50); Pause is the
	// rest between two batches (200ms), so intake and matching get the
	// writer in between; Interval is the time between two passes (1m).
	Batch    int      `yaml:"batch"`
	Pause    Duration `yaml:"pause"`
	Interval Duration `yaml:"interval"`
	// Export writes the rows of its kinds out, as JSON lines, before
	// retention deletes them (off unless dir is set).
	Export RetentionExport `yaml:"export"`

	// encountersDefault is Encounters' default: the history's horizon.
	encountersDefault time.Duration
}

// RetentionExport is export before delete: retention writes each old row
// of the kinds to DIR/KIND/YYYY-MM-DD.jsonl (the day of its end) and
// syncs the file before it deletes the row.
type RetentionExport struct {
	// Dir is the export's directory, relative to the configuration file;
	// empty: no export.
	Dir string `yaml:"dir"`
	// Kinds are the kinds written out (tickets, matches, rating_results);
	// absent: every one of them that retention removes.
	Kinds []cupid.RetentionKind `yaml:"kinds"`
}

// The retention defaults.
const (
	DefaultKeepTickets       = 7 * 24 * time.Hour
	DefaultKeepMatches       = 30 * 24 * time.Hour
	DefaultRetentionBatch    = 50
	DefaultRetentionPause    = 200 * time.Millisecond
	DefaultRetentionInterval = time.Minute
	minKeep                  = time.Minute
	maxRetentionBatch        = 10_000
	maxRetentionPause        = 10 * time.Second
	maxRetentionInterval     = 24 * time.Hour
	minRetentionInterval     = time.Second
)

// Keep is how long a kind is kept: a duration ("168h", "7d", a number of
// seconds) or "forever".
type Keep struct {
	D       time.Duration
	Forever bool
}

// UnmarshalYAML reads a Keep.
func (k *Keep) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.Value == "forever" {
		*k = Keep{Forever: true}
		return nil
	}
	if n.Kind == yaml.ScalarNode && strings.HasSuffix(n.Value, "d") {
		days, err := strconv.ParseFloat(strings.TrimSuffix(n.Value, "d"), 64)
		if err == nil && days > 0 && days <= 100*365 {
			*k = Keep{D: time.Duration(days * float64(24*time.Hour))}
			return nil
		}
	}
	var d Duration
	if err := d.UnmarshalYAML(n); err != nil {
		return fmt.Errorf("must be a duration such as 7d or 168h, a number of seconds, or forever, got %s", describe(n))
	}
	*k = Keep{D: time.Duration(d)}
	return nil
}

// Rules returns how long each kind is kept, by kind; a kind kept for ever
// is absent.
func (r Retention) Rules() map[cupid.RetentionKind]time.Duration {
	out := map[cupid.RetentionKind]time.Duration{}
	for _, e := range r.kinds() {
		if !e.v.Forever {
			out[e.kind] = e.v.D
		}
	}
	return out
}

type keepEntry struct {
	kind  cupid.RetentionKind
	field string
	v     *Keep
	def   time.Duration // 0: for ever
}

func (r *Retention) kinds() []keepEntry {
	return []keepEntry{
		{cupid.RetainTickets, "retention.tickets", &r.Tickets, DefaultKeepTickets},
		{cupid.RetainMatches, "retention.matches", &r.Matches, DefaultKeepMatches},
		{cupid.RetainRatingHistory, "retention.rating_history", &r.RatingHistory, 0},
		{cupid.RetainRatingResults, "retention.rating_results", &r.RatingResults, 0},
		{cupid.RetainEncounters, "retention.encounters", &r.Encounters, r.encountersDefault},
	}
}

// check refuses bad values naming the setting and fills in the defaults;
// encounterHorizon (how far back the encounter history looks) is what is
// kept of it by default.
func (r *Retention) check(doc *document, dir string, encounterHorizon time.Duration) {
	r.encountersDefault = encounterHorizon
	for _, e := range r.kinds() {
		switch {
		case e.v.Forever:
		case e.v.D == 0 && e.def == 0:
			e.v.Forever = true
		case e.v.D == 0:
			e.v.D = e.def
		case e.v.D < minKeep:
			doc.report(cupid.Invalid(e.field, "must be at least %v (or forever), got %v", minKeep, e.v.D))
		}
	}
	if r.Batch < 0 || r.Batch > maxRetentionBatch {
		doc.report(cupid.Invalid("retention.batch", "must be between 1 and %d (0 or absent means %d), got %d", maxRetentionBatch, DefaultRetentionBatch, r.Batch))
	} else if r.Batch == 0 {
		r.Batch = DefaultRetentionBatch
	}
	if r.Pause < 0 || time.Duration(r.Pause) > maxRetentionPause {
		doc.report(cupid.Invalid("retention.pause", "must be at most %v (0 or absent means %v), got %v", maxRetentionPause, DefaultRetentionPause, time.Duration(r.Pause)))
	} else if r.Pause == 0 {
		r.Pause = Duration(DefaultRetentionPause)
	}
	switch {
	case r.Interval == 0:
		r.Interval = Duration(DefaultRetentionInterval)
	case time.Duration(r.Interval) < minRetentionInterval || time.Duration(r.Interval) > maxRetentionInterval:
		doc.report(cupid.Invalid("retention.interval", "must be between %v and %v, got %v", minRetentionInterval, maxRetentionInterval, time.Duration(r.Interval)))
	}
	r.checkExport(doc, dir)
}

// checkExport refuses an export that would write nothing it says: kinds
// without a directory, a kind that is not exported or is named twice, a
// kind retention never removes (kept for ever, so never exported). Absent
// kinds become every exported kind retention removes.
func (r *Retention) checkExport(doc *document, dir string) {
	e := &r.Export
	if e.Dir == "" {
		if len(e.Kinds) > 0 {
			doc.report(cupid.Invalid("retention.export.dir", "required with retention.export.kinds: the directory the rows are written to"))
		}
		return
	}
	e.Dir = resolvePath(dir, e.Dir)
	rules := r.Rules()
	if e.Kinds == nil {
		for _, k := range cupid.ExportKinds {
			if _, ok := rules[k]; ok {
				e.Kinds = append(e.Kinds, k)
			}
		}
		return
	}
	if len(e.Kinds) == 0 {
		doc.report(cupid.Invalid("retention.export.kinds", "name at least one of %s, or leave it out for every one retention removes", kindList(cupid.ExportKinds)))
	}
	seen := map[cupid.RetentionKind]bool{}
	for i, k := range e.Kinds {
		field := fmt.Sprintf("retention.export.kinds[%d]", i)
		_, removed := rules[k]
		switch {
		case slices.Contains(cupid.RetentionKinds, k) && !slices.Contains(cupid.ExportKinds, k):
			doc.report(cupid.Invalid(field, "%s are not exported (only %s): they are lines of players' state, not outcomes", k, kindList(cupid.ExportKinds)))
		case !slices.Contains(cupid.ExportKinds, k):
			doc.report(cupid.Invalid(field, "no kind of data %q: one of %s", k, kindList(cupid.ExportKinds)))
		case seen[k]:
			doc.report(cupid.Invalid(field, "%s is named twice", k))
		case !removed:
			doc.report(cupid.Invalid(field, "retention.%s keeps %s for ever, so none would be exported: give it a duration", k, k))
		}
		seen[k] = true
	}
}

func kindList(ks []cupid.RetentionKind) string {
	var names []string
	for _, k := range ks {
		names = append(names, string(k))
	}
	return strings.Join(names, ", ")
}
