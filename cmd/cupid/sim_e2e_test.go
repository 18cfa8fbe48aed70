package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestSimReportInChromium writes the HTML report of a comparison (two
// rulesets and the baselines) and opens it from disk in headless Chromium,
// with the network cut off so nothing could come from elsewhere: every
// plot must render as an SVG with its series drawn and a size on the page,
// and the table must have a column per run.
func TestSimReportInChromium(t *testing.T) {
	chromium := findChromium()
	if chromium == "" {
		t.Skip("chromium is not installed (apt-get install chromium, or set CUPID_CHROMIUM): the browser test is skipped")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	out, err := run("sim", "run", filepath.Join(simExamples, "5v5.yaml"),
		"--ruleset", filepath.Join(simExamples, "5v5.json"), "--compare", filepath.Join(simExamples, "5v5-wide.json"),
		"--players", "1500", "--hours", "2", "--html", page)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.NoSandbox, // CI runs as root
		chromedp.DisableGPU,
		chromedp.WindowSize(1200, 900),
		chromedp.ProxyServer("127.0.0.1:9"), // nothing answers: a page that fetched anything would show it
	)
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()

	type result struct {
		Plots     int     `json:"plots"`
		Drawn     int     `json:"drawn"`
		Empty     []int   `json:"empty"`
		MinHeight float64 `json:"minHeight"`
		Columns   int     `json:"columns"`
		External  int     `json:"external"`
	}
	if err := chromedp.Do(bctx, chromedp.Navigate("file://"+page), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(bctx, chromedp.Evaluate[result](`(() => {
		const svgs = [...document.querySelectorAll('figure svg')];
		const empty = [];
		let drawn = 0, minHeight = Infinity;
		svgs.forEach((s, i) => {
			const n = s.querySelectorAll('.series').length;
			if (n === 0) empty.push(i); else drawn++;
			minHeight = Math.min(minHeight, s.getBoundingClientRect().height);
		});
		return {
			plots: svgs.length, drawn, empty, minHeight,
			columns: document.querySelectorAll('table tr:first-child th').length - 1,
			external: document.querySelectorAll('script[src], link[href], img[src]').length,
		};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	// Waits over the day and their distribution, skill gap, team balance,
	// ping, quality, quality parts, queue size, abandonment, arrivals.
	if got.Plots != 10 || got.Drawn != got.Plots {
		t.Errorf("%d plots, %d drawn (empty: %v); want 10, all drawn", got.Plots, got.Drawn, got.Empty)
	}
	if got.MinHeight < 100 {
		t.Errorf("a plot is %v px high", got.MinHeight)
	}
	if got.Columns != 4 {
		t.Errorf("the table has %d run columns, want 4 (two rulesets, FIFO, greedy)", got.Columns)
	}
	if got.External != 0 {
		t.Errorf("the page loads %d external resources", got.External)
	}
}
