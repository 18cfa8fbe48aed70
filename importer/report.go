// Package importer turns other matchmakers' configurations into Cupid
// rulesets: FlexMatch rule sets, Nakama matchmaker queries and Open Match
// match profiles. Each import returns the ruleset and a report that walks the
// source line by line, saying what each part became, whether the meaning is
// kept exactly, approximately (and how it differs), or not at all (and why).
//
// The package is pure: bytes in, a ruleset document and a report out. The
// ruleset is always checked with ruleset.Load before it is returned, so an
// import never hands back a document Cupid would refuse.
package importer

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cupid-match/cupid/ruleset"
)

// Status says how faithfully one part of the source was carried over.
type Status string

const (
	// Exact: Cupid applies the same rule.
	Exact Status = "exact"
	// Approximate: Cupid applies a rule close to it; Why says how it
	// differs.
	Approximate Status = "approximate"
	// Dropped: nothing in the ruleset stands for it; Why says why.
	Dropped Status = "dropped"
)

// Outcome is the verdict on a whole import, and the exit status of `cupid
// ruleset import`.
type Outcome int

const (
	// OutcomeExact: every part was carried over exactly (exit 0).
	OutcomeExact Outcome = 0
	// OutcomeApproximate: a ruleset was written, but some part was
	// approximated or dropped (exit 1).
	OutcomeApproximate Outcome = 1
	// OutcomeRefused: no ruleset could be written (exit 2).
	OutcomeRefused Outcome = 2
)

func (o Outcome) String() string {
	switch o {
	case OutcomeExact:
		return "exact"
	case OutcomeApproximate:
		return "approximate"
	}
	return "refused"
}

// Entry is one line of the report.
type Entry struct {
	// Line is the source line the part starts on (1-based); 0 for the
	// source as a whole.
	Line int `json:"line"`
	// Source names the part: "rules[FairTeamSkill] (distance)".
	Source string `json:"source"`
	// Became names what it became in the ruleset ("team_rule[0]"), empty
	// when dropped.
	Became string `json:"became,omitempty"`
	// Status is exact, approximate or dropped.
	Status Status `json:"status"`
	// Why explains an approximation or a drop, and notes anything a reader
	// should know about an exact one.
	Why string `json:"why,omitempty"`
}

// Report is the account of one import.
type Report struct {
	// From is the source product: "flexmatch", "nakama" or "openmatch".
	From string `json:"from"`
	// Entries are in source order.
	Entries []Entry `json:"entries"`
	// Refused, when not empty, says why no ruleset could be written.
	Refused string `json:"refused,omitempty"`
}

// Outcome is the report's verdict.
func (r *Report) Outcome() Outcome {
	if r.Refused != "" {
		return OutcomeRefused
	}
	for _, e := range r.Entries {
		if e.Status != Exact {
			return OutcomeApproximate
		}
	}
	return OutcomeExact
}

func (r *Report) add(line int, source, became string, st Status, why string, args ...any) {
	if len(args) > 0 {
		why = fmt.Sprintf(why, args...)
	}
	r.Entries = append(r.Entries, Entry{Line: line, Source: source, Became: became, Status: st, Why: why})
}

// sort orders entries by line, keeping the order of entries on one line.
func (r *Report) sort() {
	sort.SliceStable(r.Entries, func(i, j int) bool { return r.Entries[i].Line < r.Entries[j].Line })
}

// Text renders the report for a terminal, one entry a line:
//
//	FILE:12: rules[FairTeamSkill] (distance) -> team_rule[0]: exact
//	FILE:30: rules[SortBySkill] (distanceSort): dropped: Cupid …
//
// and a last line with the verdict.
func (r *Report) Text(name string) string {
	var b strings.Builder
	for _, e := range r.Entries {
		if e.Line > 0 {
			fmt.Fprintf(&b, "%s:%d: ", name, e.Line)
		} else {
			fmt.Fprintf(&b, "%s: ", name)
		}
		b.WriteString(e.Source)
		if e.Became != "" {
			b.WriteString(" -> ")
			b.WriteString(e.Became)
		}
		b.WriteString(": ")
		b.WriteString(string(e.Status))
		if e.Why != "" {
			b.WriteString(": ")
			b.WriteString(e.Why)
		}
		b.WriteByte('\n')
	}
	if r.Refused != "" {
		fmt.Fprintf(&b, "%s: refused: %s\n", name, r.Refused)
	} else {
		fmt.Fprintf(&b, "%s: %s\n", name, r.Outcome())
	}
	return b.String()
}

// Result is a finished import.
type Result struct {
	// Ruleset is the Cupid ruleset, indented JSON that ruleset.Load accepts;
	// nil when the import was refused (or, for Open Match, when the profile
	// has several pools: see Config).
	Ruleset []byte
	// Config is a configuration's queues section (YAML), for imports that
	// write queues: Open Match's pools.
	Config []byte
	// Report says what became what.
	Report Report
}

// finish encodes rs and checks that Cupid loads it. A ruleset Cupid would
// refuse is a bug of the importer, reported as a refusal naming the
// problems rather than handed on.
func finish(rs *ruleset.Ruleset, rep Report) *Result {
	rep.sort()
	res := &Result{Report: rep}
	if rep.Refused != "" {
		return res
	}
	// Expressions hold < and >: no HTML escaping, the file is read by people.
	data, err := encodeRuleset(rs)
	if err != nil {
		res.Report.Refused = "encoding the ruleset: " + err.Error()
		return res
	}
	if ps := ruleset.Check(data); ps != nil {
		res.Report.Refused = "the ruleset written does not load: " + strings.TrimSpace(ruleset.FormatProblems("ruleset", ps))
		return res
	}
	res.Ruleset = data
	return res
}

// Sources lists the products Import understands.
var Sources = []string{"flexmatch", "nakama", "openmatch"}

// Import runs the importer for from ("flexmatch", "nakama", "openmatch") on
// src. An unknown source is an error; everything else, including a source
// that cannot be read, comes back as a Result whose report says so.
func Import(from string, src []byte) (*Result, error) {
	switch from {
	case "flexmatch":
		return FlexMatch(src), nil
	case "nakama":
		return Nakama(src), nil
	case "openmatch":
		return OpenMatch(src), nil
	}
	return nil, fmt.Errorf("unknown source %q: one of %s", from, strings.Join(Sources, ", "))
}
