package sim

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"

	"github.com/cupid-match/cupid"
)

// HTML renders the report as one self-contained page: a table of the runs
// side by side and plots drawn as inline SVG — no script, no stylesheet or
// font from elsewhere, so it opens offline and can be mailed around. It is
// drawn from the Report alone, so a JSON report can be drawn again.
func (r *Report) HTML() []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>`)
	b.WriteString(html.EscapeString("Cupid simulation: " + r.Title))
	b.WriteString(`</title>
<style>
body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}
h1{font-size:22px}h2{font-size:17px;margin-top:28px}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}
th:first-child,td:first-child{text-align:left}
.plots{display:flex;flex-wrap:wrap;gap:16px}
figure{margin:0}figcaption{font-size:12px;color:#555;max-width:560px}
svg text{font-family:system-ui,sans-serif}
</style></head><body>
`)
	fmt.Fprintf(&b, "<h1>%s</h1>\n<p>%s; %g hours of virtual time; seed %d; ticket time to live %gs.</p>\n",
		html.EscapeString("Cupid simulation: "+r.Title), html.EscapeString(r.Source), r.Hours, r.Seed, r.TTL)
	r.table(&b)
	b.WriteString("<h2>Waits</h2>\n<div class=\"plots\">\n")
	r.hourly(&b, "Wait over the day (median solid, 90th percentile dashed)", "seconds", func(h Hour) float64 { return h.WaitP50 }, func(h Hour) float64 { return h.WaitP90 },
		"The wait of the players matched in each hour.")
	r.cdf(&b, "wait_seconds", "Wait distribution", "wait (s)", "Share of matched players who waited at most this long.")
	b.WriteString("</div>\n<h2>Match quality</h2>\n<div class=\"plots\">\n")
	r.cdf(&b, "skill_gap", "Skill gap", "strongest minus weakest player", "Share of matches whose skill gap is at most this.")
	r.cdf(&b, "team_balance", "Team balance", "strongest minus weakest team mean", "Share of matches whose teams' mean skills differ by at most this.")
	r.cdf(&b, "ping_ms", "Ping", "players' mean latency to the host (ms)", "Share of matches whose players' mean latency is at most this.")
	r.cdf(&b, "quality", "Quality score", "score", "Share of matches scoring at most this (rulesets only).")
	r.parts(&b)
	b.WriteString("</div>\n<h2>Queue</h2>\n<div class=\"plots\">\n")
	r.queue(&b)
	r.hourly(&b, "Abandonment over the day", "% of arrivals", func(h Hour) float64 {
		if h.Arrived == 0 {
			return 0
		}
		return 100 * float64(h.Abandoned+h.Expired) / float64(h.Arrived)
	}, nil, "Players who gave up or expired in each hour, as a share of the players who arrived in it.")
	r.hourly(&b, "Arrivals over the day", "players per hour", func(h Hour) float64 { return float64(h.Arrived) }, nil,
		"New and returning players; returns differ between runs because matches do.")
	b.WriteString("</div>\n</body></html>\n")
	return []byte(b.String())
}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"}

func color(i int) string { return palette[i%len(palette)] }

func (r *Report) table(b *strings.Builder) {
	b.WriteString("<table>\n<tr><th></th>")
	for _, run := range r.Runs {
		fmt.Fprintf(b, "<th>%s</th>", html.EscapeString(run.Name))
	}
	b.WriteString("</tr>\n")
	sum := func(s *Summary) string {
		if s == nil {
			return "–"
		}
		return fmt.Sprintf("%s / %s / %s", num(s.P50), num(s.P90), num(s.P99))
	}
	rows := []struct {
		label string
		get   func(*Run) string
	}{
		{"kind", func(x *Run) string { return x.Kind }},
		{"players arrived (returning)", func(x *Run) string { return fmt.Sprintf("%d (%d)", x.Arrived, x.Returned) }},
		{"tickets", func(x *Run) string { return strconv.Itoa(x.Tickets) }},
		{"matches", func(x *Run) string { return strconv.Itoa(x.Matches) }},
		{"players matched", func(x *Run) string { return strconv.Itoa(x.Matched) }},
		{"abandoned / expired", func(x *Run) string { return fmt.Sprintf("%d / %d", x.Abandoned, x.Expired) }},
		{"abandonment", func(x *Run) string { return fmt.Sprintf("%.1f%%", 100*x.AbandonRate) }},
		{"refused", func(x *Run) string { return strconv.Itoa(x.Refused) }},
		{"waiting at the end", func(x *Run) string { return strconv.Itoa(x.WaitingAtEnd) }},
		{"wait s (p50 / p90 / p99)", func(x *Run) string { return sum(&x.Wait) }},
		{"skill gap (p50 / p90 / p99)", func(x *Run) string { return sum(x.SkillGap) }},
		{"team balance (p50 / p90 / p99)", func(x *Run) string { return sum(x.TeamBalance) }},
		{"ping ms (p50 / p90 / p99)", func(x *Run) string { return sum(x.Ping) }},
		{"quality (mean / p10)", func(x *Run) string {
			if x.Quality == nil {
				return "–"
			}
			return fmt.Sprintf("%.3f / %.3f", x.Quality.Mean, x.Quality.P10)
		}},
		{"baseline hold (s)", func(x *Run) string {
			if x.HoldSeconds == nil {
				return "–"
			}
			return num(*x.HoldSeconds)
		}},
	}
	for _, row := range rows {
		fmt.Fprintf(b, "<tr><td>%s</td>", row.label)
		for i := range r.Runs {
			fmt.Fprintf(b, "<td>%s</td>", html.EscapeString(row.get(&r.Runs[i])))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table>\n")
	for _, run := range r.Runs {
		for _, rf := range run.Refusals {
			fmt.Fprintf(b, "<p>%s refused %d players: %s</p>\n", html.EscapeString(run.Name), rf.Players, html.EscapeString(rf.Reason))
		}
	}
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// line is one series of a plot.
type line struct {
	name   string
	color  string
	dash   bool
	xs, ys []float64
}

// plot draws lines on shared axes as an SVG figure with a caption.
func plot(b *strings.Builder, title, xlabel, ylabel, caption string, lines []line) {
	const w, h, left, right, top, bottom = 560, 320, 60, 20, 30, 45
	xmin, xmax, ymax := math.Inf(1), math.Inf(-1), 0.0
	for _, l := range lines {
		for i := range l.xs {
			xmin, xmax, ymax = min(xmin, l.xs[i]), max(xmax, l.xs[i]), max(ymax, l.ys[i])
		}
	}
	if math.IsInf(xmin, 0) {
		return
	}
	if xmax <= xmin {
		xmax = xmin + 1
	}
	ystep := niceStep(ymax / 5)
	ytop := ystep * math.Ceil(ymax/ystep)
	if ytop <= 0 {
		ytop = 1
	}
	px := func(x float64) float64 { return left + (x-xmin)/(xmax-xmin)*(w-left-right) }
	py := func(y float64) float64 { return h - bottom - y/ytop*(h-top-bottom) }
	b.WriteString("<figure>\n")
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="%s">`+"\n",
		w, h, w, h, html.EscapeString(title))
	fmt.Fprintf(b, `<text x="%d" y="18" font-size="14" font-weight="bold">%s</text>`+"\n", left, html.EscapeString(title))
	// Axes, grid and ticks.
	for y := 0.0; y <= ytop+ystep/2; y += ystep {
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#eee"/><text x="%d" y="%.1f" font-size="11" text-anchor="end">%s</text>`+"\n",
			left, w-right, py(y), py(y), left-4, py(y)+4, tick(y))
	}
	xstep := niceStep((xmax - xmin) / 6)
	for x := math.Ceil(xmin/xstep) * xstep; x <= xmax+xstep/1e6; x += xstep {
		fmt.Fprintf(b, `<text x="%.1f" y="%d" font-size="11" text-anchor="middle">%s</text>`+"\n", px(x), h-bottom+15, tick(x))
	}
	fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#444"/><line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#444"/>`+"\n",
		left, w-right, h-bottom, h-bottom, left, left, top, h-bottom)
	fmt.Fprintf(b, `<text x="%d" y="%d" font-size="11" text-anchor="middle">%s</text>`+"\n", (left+w-right)/2, h-8, html.EscapeString(xlabel))
	fmt.Fprintf(b, `<text x="12" y="%d" font-size="11" text-anchor="middle" transform="rotate(-90 12 %d)">%s</text>`+"\n",
		(top+h-bottom)/2, (top+h-bottom)/2, html.EscapeString(ylabel))
	legend := 0
	for _, l := range lines {
		var pts strings.Builder
		for k := range l.xs {
			fmt.Fprintf(&pts, "%.1f,%.1f ", px(l.xs[k]), py(l.ys[k]))
		}
		dash := ""
		if l.dash {
			dash = ` stroke-dasharray="5,4"`
		}
		fmt.Fprintf(b, `<polyline class="series" fill="none" stroke="%s" stroke-width="1.8"%s points="%s"/>`+"\n", l.color, dash, strings.TrimSpace(pts.String()))
		if !l.dash {
			fmt.Fprintf(b, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d" font-size="11">%s</text>`+"\n",
				w-right-150, top+4+legend*14, l.color, w-right-136, top+13+legend*14, html.EscapeString(l.name))
			legend++
		}
	}
	b.WriteString("</svg>\n")
	fmt.Fprintf(b, "<figcaption>%s</figcaption>\n</figure>\n", html.EscapeString(caption))
}

// tick writes an axis value briefly.
func tick(v float64) string {
	if math.Abs(v) >= 10000 {
		return strconv.FormatFloat(v/1000, 'f', -1, 64) + "k"
	}
	return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64)
}

// hourly plots a value per hour for every run; second, when given, adds a
// dashed line per run.
func (r *Report) hourly(b *strings.Builder, title, ylabel string, first, second func(Hour) float64, caption string) {
	var lines []line
	for i, run := range r.Runs {
		l := line{name: run.Name, color: color(i)}
		d := line{name: run.Name, color: color(i), dash: true}
		for _, h := range run.Hourly {
			l.xs, l.ys = append(l.xs, float64(h.Hour)+0.5), append(l.ys, first(h))
			if second != nil {
				d.xs, d.ys = append(d.xs, float64(h.Hour)+0.5), append(d.ys, second(h))
			}
		}
		lines = append(lines, l)
		if second != nil {
			lines = append(lines, d)
		}
	}
	plot(b, title, "hour", ylabel, caption, lines)
}

// cdf plots the cumulative share of a histogram for every run that has
// values.
func (r *Report) cdf(b *strings.Builder, metric, title, xlabel, caption string) {
	hist, ok := r.Histograms[metric]
	if !ok {
		return
	}
	var lines []line
	for i, counts := range hist.Counts {
		total := 0
		for _, c := range counts {
			total += c
		}
		if total == 0 || i >= len(r.Runs) {
			continue
		}
		l := line{name: r.Runs[i].Name, color: color(i), xs: []float64{hist.Edges[0]}, ys: []float64{0}}
		acc := 0
		for k, c := range counts {
			acc += c
			l.xs, l.ys = append(l.xs, hist.Edges[k+1]), append(l.ys, float64(acc)/float64(total))
		}
		lines = append(lines, l)
	}
	plot(b, title, xlabel, "share", caption, lines)
}

// queue plots the players waiting at each sample.
func (r *Report) queue(b *strings.Builder) {
	var lines []line
	for i, run := range r.Runs {
		l := line{name: run.Name, color: color(i)}
		for k, n := range run.Queue {
			l.xs, l.ys = append(l.xs, float64(k)*r.SampleSeconds/3600), append(l.ys, float64(n))
		}
		lines = append(lines, l)
	}
	plot(b, "Queue size over the day", "hour", "players waiting", "Players waiting, sampled every "+num(r.SampleSeconds)+" s.", lines)
}

// parts draws the mean of each quality criterion per ruleset run as
// grouped bars.
func (r *Report) parts(b *strings.Builder) {
	names := map[string]bool{}
	var runs []int
	for i, run := range r.Runs {
		if len(run.QualityParts) > 0 {
			runs = append(runs, i)
			for n := range run.QualityParts {
				names[n] = true
			}
		}
	}
	if len(runs) == 0 {
		return
	}
	list := cupid.SortedKeys(names)
	const w, h, left, top, bottom = 560, 320, 60, 30, 45
	group := float64(w-left-20) / float64(len(list))
	bar := group * 0.8 / float64(len(runs))
	py := func(y float64) float64 { return h - bottom - y*(h-top-bottom) }
	b.WriteString("<figure>\n")
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-label="Quality parts">`+"\n", w, h, w, h)
	fmt.Fprintf(b, `<text x="%d" y="18" font-size="14" font-weight="bold">Quality parts (mean score of each criterion)</text>`+"\n", left)
	for y := 0.0; y <= 1.0001; y += 0.25 {
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#eee"/><text x="%d" y="%.1f" font-size="11" text-anchor="end">%s</text>`+"\n",
			left, w-20, py(y), py(y), left-4, py(y)+4, tick(y))
	}
	for g, name := range list {
		x0 := float64(left) + float64(g)*group + group*0.1
		for k, i := range runs {
			s, ok := r.Runs[i].QualityParts[name]
			if !ok {
				continue
			}
			fmt.Fprintf(b, `<rect class="series" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s: %.3f</title></rect>`+"\n",
				x0+float64(k)*bar, py(s.Mean), bar-1, py(0)-py(s.Mean), color(i), html.EscapeString(r.Runs[i].Name), html.EscapeString(name), s.Mean)
		}
		fmt.Fprintf(b, `<text x="%.1f" y="%d" font-size="11" text-anchor="middle">%s</text>`+"\n", x0+group*0.4, h-bottom+15, html.EscapeString(name))
	}
	for k, i := range runs {
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d" font-size="11">%s</text>`+"\n",
			w-170, top+4+k*14, color(i), w-156, top+13+k*14, html.EscapeString(r.Runs[i].Name))
	}
	b.WriteString("</svg>\n<figcaption>The engine's score of each criterion, averaged over the matches (1 is best).</figcaption>\n</figure>\n")
}
