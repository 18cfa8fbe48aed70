package ruleset

import (
	"fmt"
	"sort"
	"strings"
)

// Pos is a place in a ruleset's source text. Lines and columns count from 1;
// a column counts characters (runes), not bytes, so that it matches what an
// editor shows for non-ASCII text. The zero Pos means "no source known", as
// for a Ruleset built in Go rather than parsed.
type Pos struct {
	Line   int
	Column int
}

// Known reports whether the position points into a source text.
func (p Pos) Known() bool { return p.Line > 0 }

// Problem is one thing wrong with a ruleset: where it is (the JSON path, and
// the line and column when the ruleset was parsed from text) and what is
// wrong. Paths look like alliance.player_min_number or matching_rule[1].max;
// an empty path is the document itself.
type Problem struct {
	Path    string
	Line    int
	Column  int
	Message string
}

// String renders the problem as "LINE:COL: path: message", leaving out what
// is not known.
func (p Problem) String() string {
	var b strings.Builder
	if p.Line > 0 {
		fmt.Fprintf(&b, "%d:%d: ", p.Line, p.Column)
	}
	if p.Path != "" {
		b.WriteString(p.Path)
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// Problems is every problem found in one ruleset. Parse, Validate and Compile
// return it as their error so that a studio fixes its file in one round trip
// instead of one error at a time.
type Problems []Problem

// Error lists the problems one per line.
func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// sortByPosition orders problems by where they are in the source, keeping
// the order they were found in among equals (and for problems with no
// position), so output is stable and reads top to bottom like the file.
func (ps Problems) sortByPosition() {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
}

// MaxProblems is the most problems reported for one ruleset; past it, a
// last problem says how many more there were. A broken file does not need a
// thousand lines to be fixed, and a hostile one must not produce them.
const MaxProblems = 100

// capped trims a long list to MaxProblems and a summary.
func (ps Problems) capped() Problems {
	if len(ps) <= MaxProblems {
		return ps
	}
	more := len(ps) - MaxProblems
	out := append(Problems(nil), ps[:MaxProblems]...)
	return append(out, Problem{Message: fmt.Sprintf("… and %d more problems", more)})
}

// errorOrNil turns an empty list into a nil error; returning a nil Problems
// as an error would make err != nil true.
func (ps Problems) errorOrNil() error {
	if len(ps) == 0 {
		return nil
	}
	return ps
}
