package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// row is one figure of the summary table: its samples, one per round, and
// its floor's, measured in the same round.
type row struct {
	target  string // the product target, as the summary table states it
	command string // what measured the figure
	unit    string
	// floorName names the floor and floorUnit its unit; empty: the
	// figure has none (bytes are exact).
	floorName, floorUnit string
	// ratioName says what the ratio is, e.g. "× sort".
	ratioName string
	// ratio turns a sample and its floor into the ratio compared from
	// machine to machine.
	ratio    func(measured, floor float64) float64
	note     string
	measured []float64
	floor    []float64
	// wall, when the samples are CPU times, holds the wall-clock times
	// beside them (a machine shared with other work waits for a core).
	wall, floorWall []float64
	// The target's bounds, for the verdict (0: none): most and least
	// the figure may be, most its ratio may be. onWall judges the wall
	// times rather than the CPU times (a target in wall-clock time).
	most, least, mostRatio float64
	onWall                 bool
}

// verdict says whether every round met the row's bounds, and which bound
// was missed in how many rounds.
func (r *row) verdict() string {
	if r.most == 0 && r.least == 0 && r.mostRatio == 0 {
		return "—"
	}
	vs := r.measured
	if r.onWall && len(r.wall) == len(r.measured) {
		vs = r.wall
	}
	unit := strings.TrimSuffix(r.unit, " CPU")
	var missed []string
	count := func(what string, miss func(i int) bool) {
		n := 0
		for i := range vs {
			if miss(i) {
				n++
			}
		}
		if n > 0 {
			missed = append(missed, fmt.Sprintf("%s missed in %d of %d rounds", what, n, len(vs)))
		}
	}
	if r.most > 0 {
		count("≤ "+num(r.most)+" "+unit, func(i int) bool { return vs[i] > r.most })
	}
	if r.least > 0 {
		count("≥ "+num(r.least)+" "+unit, func(i int) bool { return vs[i] < r.least })
	}
	if r.mostRatio > 0 {
		count("≤ "+num(r.mostRatio)+r.ratioName, func(i int) bool { return r.ratio(r.measured[i], r.floor[i]) > r.mostRatio })
	}
	if len(missed) == 0 {
		return "met"
	}
	return strings.Join(missed, "; ")
}

// table keeps the rows in the order they were first measured.
type table struct {
	rows []*row
}

// add records one round's sample of a row (created on first use from
// proto).
func (t *table) add(proto row, measured, floor float64) {
	t.addWall(proto, measured, floor, -1, -1)
}

// addWall is add for CPU times, with the wall-clock times beside them (-1:
// none).
func (t *table) addWall(proto row, measured, floor, wall, floorWall float64) {
	var r *row
	for _, x := range t.rows {
		if x.target == proto.target && x.command == proto.command {
			r = x
		}
	}
	if r == nil {
		r = &row{}
		*r = proto
		t.rows = append(t.rows, r)
	}
	r.measured = append(r.measured, measured)
	r.floor = append(r.floor, floor)
	if wall >= 0 {
		r.wall = append(r.wall, wall)
		r.floorWall = append(r.floorWall, floorWall)
	}
}

// print writes the table in docs/PERFORMANCE.md's markdown, ranges over
// the rounds.
func (t *table) print(w io.Writer, rounds int) {
	plural := "s"
	if rounds == 1 {
		plural = ""
	}
	fmt.Fprintln(w, "| target | measured | verdict |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, r := range t.rows {
		measured := span(r.measured, r.unit)
		if len(r.wall) > 0 {
			measured += " (wall " + span(r.wall, strings.TrimSuffix(r.unit, " CPU")) + ")"
		}
		if r.floorName != "" {
			floor := span(r.floor, r.floorUnit)
			if len(r.floorWall) > 0 {
				floor += " (wall " + span(r.floorWall, strings.TrimSuffix(r.floorUnit, " CPU")) + ")"
			}
			var rs []float64
			for i := range r.measured {
				rs = append(rs, r.ratio(r.measured[i], r.floor[i]))
			}
			measured += fmt.Sprintf(", %s; floor, %s: %s", span(rs, r.ratioName), r.floorName, floor)
		}
		measured += fmt.Sprintf(" — %d round%s of `%s`", rounds, plural, r.command)
		if r.note != "" {
			measured += ". " + r.note
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", r.target, measured, r.verdict())
	}
}

// span renders samples as "lo–hi unit" (one value when they agree at the
// precision shown).
func span(vs []float64, unit string) string {
	if len(vs) == 0 {
		return "—"
	}
	lo, hi := slices.Min(vs), slices.Max(vs)
	a, b := num(lo), num(hi)
	s := a
	if a != b {
		s = a + "–" + b
	}
	if unit == "" {
		return s
	}
	if strings.HasPrefix(unit, "×") {
		return s + unit
	}
	return s + " " + unit
}

// num prints three significant digits, with thousands separators for large
// values, as the doc writes them.
func num(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1000:
		return commas(int64(math.Round(v)))
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

func commas(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
