package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"google.golang.org/protobuf/types/known/structpb"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// The dashboard in a real headless Chromium at a laptop's 1366×768: each
// page loads, live data appears as tickets are created through the API,
// the ruleset editor marks a broken ruleset at the right line, the
// met-graph of an event draws its people and directed edges after a round,
// the finders page shows buckets in words, and with auth on the page asks
// for an admin key and never puts it in a URL.
//
// CUPID_DASHBOARD_SHOTS=dir keeps the screenshots there (docs/img is made
// so); otherwise they go to the test's temporary directory.

// browserTab is one Chromium tab and what its network log saw.
type browserTab struct {
	ctx  context.Context
	log  *netLog
	dir  string
	base string
	// thrown are the pages' uncaught JavaScript exceptions (guarded by
	// log.mu).
	thrown []string
}

func newDashboardBrowser(t *testing.T) context.Context {
	t.Helper()
	chromium := findChromium()
	if chromium == "" {
		t.Skip("chromium is not installed (apt-get install chromium, or set CUPID_CHROMIUM): the dashboard browser test is skipped")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.NoSandbox, // CI runs as root
		chromedp.DisableGPU,
		chromedp.WindowSize(1366, 768),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	t.Cleanup(cancel)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(cancelBrowser)
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("starting %s: %v", chromium, err)
	}
	return bctx
}

func openTab(t *testing.T, bctx context.Context, url string) *browserTab {
	t.Helper()
	dir := os.Getenv("CUPID_DASHBOARD_SHOTS")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	l := newNetLog()
	tab := &browserTab{log: l, dir: dir, base: url}
	tctx, cancel := chromedp.NewContext(bctx, chromedp.WithListener(func(ev any) {
		if e, ok := ev.(*runtime.EventExceptionThrown); ok {
			l.mu.Lock()
			d := e.ExceptionDetails
			what := d.Text
			if d.Exception != nil {
				what += " " + d.Exception.Description
			}
			tab.thrown = append(tab.thrown, fmt.Sprintf("%s:%d:%d: %s", d.URL, d.LineNumber+1, d.ColumnNumber+1, what))
			l.mu.Unlock()
			return
		}
		l.listen(ev)
	}))
	t.Cleanup(cancel)
	tab.ctx = tctx
	if _, err := chromedp.Call(tctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatalf("Network.enable: %v", err)
	}
	if _, err := chromedp.Call(tctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("Log.enable: %v", err)
	}
	tab.do(t, "open the dashboard", chromedp.EmulateViewport(1366, 768), chromedp.Navigate(url))
	return tab
}

// do runs steps with a deadline; on failure it shows the page's text and
// the browser's log.
func (b *browserTab) do(t *testing.T, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		text, _ := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS(`body`)))
		b.log.mu.Lock()
		console := strings.Join(b.log.console, "\n")
		b.log.mu.Unlock()
		t.Fatalf("%s: %v\npage:\n%s\nbrowser log:\n%s", what, err, text, console)
	}
}

// until waits for a JavaScript condition to hold on the page.
func (b *browserTab) until(t *testing.T, what, cond string) {
	t.Helper()
	b.do(t, what, func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Poll[bool]("Boolean("+cond+")", chromedp.WithPollingTimeout(15*time.Second))(ctx, tg)
		return chromedp.Void{}, err
	})
}

// eval returns the value of a JavaScript expression.
func eval[T any](t *testing.T, b *browserTab, expr string) T {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// page shows another page of the dashboard (a change of the hash).
func (b *browserTab) page(t *testing.T, hash string) {
	t.Helper()
	eval[any](t, b, fmt.Sprintf("location.hash = %q; null", hash))
}

func (b *browserTab) shot(t *testing.T, name string) {
	t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(b.dir, "dashboard-"+name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s", path)
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestDashboardInTheBrowser(t *testing.T) {
	bctx := newDashboardBrowser(t)
	s := startServer(t, serveFlags{}) // the demo: duel, squad5v5 and the raid finder
	tickets := s.connectClient()
	b := openTab(t, bctx, s.url+"/dashboard/#/queues")

	t.Run("queues update live", func(t *testing.T) {
		waiting := `document.querySelector('.waiting[data-queue="duel"]')`
		b.until(t, "the queues page shows duel", waiting+`?.textContent === "0"`)
		create(t, tickets, "duel", player("alice", 1500))
		b.until(t, "one waiting in duel", waiting+`?.textContent === "1"`)
		create(t, tickets, "duel", player("bob", 1540))
		b.until(t, "alice and bob's match listed", `[...document.querySelectorAll('tr.match')].some(r => r.textContent.includes('alice') && r.textContent.includes('bob'))`)
		b.until(t, "nobody waiting in duel", waiting+`?.textContent === "0"`)
		for i, mmr := range []float64{1200, 1210, 1800, 1830, 2400} {
			create(t, tickets, "duel", player(fmt.Sprintf("p%d", i), mmr))
		}
		create(t, tickets, "duel", player("zed", 2990))
		create(t, tickets, "squad5v5", player("sam", 1500), player("sue", 1520))
		b.until(t, "the later matches and the waiting", `document.querySelectorAll('tr.match').length >= 3 && `+waiting+`?.textContent === "2"`)
		b.shot(t, "queues")
	})

	t.Run("a ticket says why it waits", func(t *testing.T) {
		b.page(t, "#/tickets")
		b.do(t, "search for zed",
			chromedp.WaitVisible(chromedp.CSS(`#find`)),
			chromedp.SetValue(chromedp.CSS(`#find`), "zed"),
			chromedp.Click(chromedp.CSS(`form.find button`)))
		b.until(t, "zed's ticket and why", `document.querySelector('#ticket .state')?.textContent === 'waiting' && document.querySelectorAll('#ticket ul.why li').length >= 2`)
		why := eval[string](t, b, `document.querySelector('#ticket ul.why').textContent`)
		if !strings.Contains(why, "looked at") {
			t.Fatalf("why zed waits: %q", why)
		}
		b.until(t, "the recent matches", `document.querySelectorAll('#recent tr.match').length >= 3`)
		b.shot(t, "tickets")
	})

	t.Run("the ruleset editor marks the line", func(t *testing.T) {
		b.page(t, "#/rulesets/duel")
		b.until(t, "the duel ruleset loaded", `document.getElementById('editor')?.value.includes('matching_rule') && document.querySelector('#history li')`)
		broken := "{\n  \"alliance\": {\"min_number\": 2, \"max_number\": 2,\n    \"player_min_number\": 1, \"player_max_number\": 1},\n  \"matching_rule\": [\n    {\"attribute\": \"mmr\", \"criteria\": \"distanse\", \"reference\": 100}\n  ]\n}"
		eval[any](t, b, `(() => { const e = document.getElementById('editor'); e.value = `+jsString(broken)+`; e.dispatchEvent(new Event('input')); return null; })()`)
		b.until(t, "a problem marked", `document.querySelector('.gutter .ln.bad') && document.querySelector('li.problem')`)
		lines := eval[[]string](t, b, `[...document.querySelectorAll('.gutter .ln.bad')].map(e => e.dataset.line)`)
		problem := eval[string](t, b, `document.querySelector('li.problem').textContent`)
		if len(lines) != 1 || lines[0] != "5" || !strings.Contains(problem, "line 5, column 38") || !strings.Contains(problem, "distanse") {
			t.Fatalf("marked lines %v, problem %q; want line 5, column 38", lines, problem)
		}
		if eval[bool](t, b, `document.getElementById('put').disabled`) != true {
			t.Fatal("a broken ruleset may be put live")
		}
		eval[any](t, b, `window.scrollTo(0, 0); null`)
		b.shot(t, "rulesets")
		b.do(t, "try the sample tickets", chromedp.Click(chromedp.CSS(`#try`)))
		b.until(t, "the try refused", `document.querySelector('#try-out .error')?.textContent.includes('problem')`)
		fixed := strings.Replace(broken, "distanse", "distance", 1)
		eval[any](t, b, `(() => { const e = document.getElementById('editor'); e.value = `+jsString(fixed)+`; e.dispatchEvent(new Event('input')); return null; })()`)
		b.until(t, "valid again", `document.getElementById('check-status').textContent === 'valid' && !document.querySelector('.gutter .ln.bad')`)
		b.do(t, "try again", chromedp.Click(chromedp.CSS(`#try`)))
		b.until(t, "ann and bob matched in the try", `[...document.querySelectorAll('tr.try-match')].some(r => r.textContent.includes('ann') && r.textContent.includes('bob'))`)
		// Import…: a FlexMatch rule set lands in the editor with its report.
		src, err := filepath.Abs(filepath.Join("..", "..", "importer", "testdata", "flexmatch", "block_list.json"))
		if err != nil {
			t.Fatal(err)
		}
		eval[any](t, b, `(() => { document.getElementById('import-from').value = 'flexmatch'; return null; })()`)
		b.do(t, "import a FlexMatch rule set", chromedp.SetUploadFiles(chromedp.CSS(`#import-file`), []string{src}))
		b.until(t, "the import in the editor", `document.getElementById('editor').value.includes('player_ids') && document.getElementById('import-report')?.textContent.includes('-> collection_rule[0]: exact')`)
		b.until(t, "the import checked", `document.getElementById('check-status').textContent === 'valid'`)
	})

	t.Run("the met-graph draws who met whom", func(t *testing.T) {
		pc := pairingClient(s)
		createPairingEvent(t, pc, &cupidv1.CreateEventRequest{Id: "mixer", Name: "Friday mixer", Seed: 7, Settings: &cupidv1.EventSettings{
			Rooms: 3, RoundMillis: 600_000, CountdownMillis: 50, MinLobby: 6,
		}})
		people := []string{"ada", "ben", "cat", "dan", "eve", "fox", "gus"}
		for _, p := range people {
			mustCall(t, pc.Join, "mixer", p)
		}
		for _, p := range people[:6] {
			mustCall(t, pc.EnterLobby, "mixer", p)
		}
		b.page(t, "#/events/mixer")
		b.until(t, "round 1 drawn", `document.querySelectorAll('svg.metgraph g.node').length === 7 && document.querySelectorAll('svg.metgraph path.edge').length === 6`)
		edges := eval[[][2]string](t, b, `[...document.querySelectorAll('svg.metgraph path.edge')].map(e => [e.dataset.from, e.dataset.to])`)
		seen := map[[2]string]bool{}
		for _, e := range edges {
			seen[e] = true
		}
		for _, e := range edges {
			if !seen[[2]string{e[1], e[0]}] || e[0] == e[1] {
				t.Fatalf("edge %v has no reverse in %v", e, edges)
			}
		}
		if n := eval[int](t, b, `[...document.querySelectorAll('svg.metgraph path.edge')].filter(e => e.getAttribute('marker-end') === 'url(#arrow)').length`); n != 6 {
			t.Fatalf("%d edges have an arrowhead, want 6", n)
		}
		b.until(t, "three busy rooms and the timer", `document.querySelectorAll('.room.busy').length === 3 && /min/.test(document.querySelector('.timer').textContent)`)
		b.shot(t, "events")
	})

	t.Run("finders show buckets in words", func(t *testing.T) {
		oc := s.opponents()
		for i := range 40 {
			m := &cupidv1.PlayerModel{Id: fmt.Sprintf("d%02d", i), Mmr: float64(900 + 37*i),
				Attributes: map[string]*structpb.Value{"guild": structpb.NewStringValue([]string{"owls", "foxes", ""}[i%3])}}
			if _, err := oc.UpdatePlayer(context.Background(), connect.NewRequest(&cupidv1.UpdatePlayerRequest{Finder: "raid", PlayerId: m.Id, Model: m})); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := oc.FindOpponent(context.Background(), connect.NewRequest(&cupidv1.FindOpponentRequest{Finder: "raid",
			Attacker: &cupidv1.PlayerModel{Id: "att", Mmr: 1500, Attributes: map[string]*structpb.Value{"guild": structpb.NewStringValue("owls")}}})); err != nil {
			t.Fatal(err)
		}
		b.page(t, "#/finders")
		b.until(t, "raid's buckets", `document.querySelectorAll('table.buckets tr').length > 5 && document.querySelector('table.buckets').textContent.includes('MMR 1500 to 1600')`)
		b.shot(t, "finders")
	})
	b.log.mu.Lock()
	t.Logf("browser log:\n%s", strings.Join(b.log.console, "\n"))
	b.log.mu.Unlock()

	b.log.mu.Lock()
	defer b.log.mu.Unlock()
	for _, f := range b.log.failed {
		if !f.Canceled { // streams closed on leaving a page are cancelled
			t.Errorf("a request failed: %s %s", b.log.urls[f.RequestID], f.ErrorText)
		}
	}
	checkConsole(t, b.log.console)
	for _, e := range b.thrown {
		t.Errorf("a page threw: %s", e)
	}
}

// checkConsole fails on what the browser logs when a page is broken: a
// script error, or something the Content-Security-Policy refused. The
// answers the pages expect (the 401 before the key is given) are network
// lines and pass.
func checkConsole(t *testing.T, lines []string) {
	t.Helper()
	for _, l := range lines {
		if strings.Contains(l, "Content Security Policy") || strings.Contains(l, "Uncaught") || strings.HasPrefix(l, "javascript") {
			t.Errorf("browser log: %s", l)
		}
	}
}

// With auth on, the page asks for an admin key, refuses another, keeps the
// key out of every URL, and then shows live data.
func TestDashboardInTheBrowserWithAuth(t *testing.T) {
	bctx := newDashboardBrowser(t)
	s, _ := authServer(t)
	b := openTab(t, bctx, s.url+"/dashboard/#/queues")
	b.until(t, "the key is asked for", `!document.getElementById('login').hidden`)
	b.do(t, "a key without admin",
		chromedp.SetValue(chromedp.CSS(`#login-key`), "cupid_sk_tickets"),
		chromedp.Click(chromedp.CSS(`#login-form button`)))
	b.until(t, "refused, asked again", `!document.getElementById('login').hidden && document.getElementById('login-error').textContent.includes('admin')`)
	b.shot(t, "login")
	b.do(t, "the admin key",
		chromedp.SetValue(chromedp.CSS(`#login-key`), "cupid_sk_admin"),
		chromedp.Click(chromedp.CSS(`#login-form button`)))
	b.until(t, "the queues page", `document.querySelector('.waiting[data-queue="duel"]')?.textContent === "0" && document.getElementById('live').textContent === 'live'`)
	c := s.as("cupid_sk_tickets")
	create(t, c.tickets, "duel", player("ann", 1500))
	b.until(t, "the new ticket live", `document.querySelector('.waiting[data-queue="duel"]')?.textContent === "1"`)
	if got := eval[string](t, b, `sessionStorage.getItem('cupid-dashboard-key')`); got != "cupid_sk_admin" {
		t.Fatalf("sessionStorage holds %q", got)
	}
	b.log.mu.Lock()
	defer b.log.mu.Unlock()
	checkConsole(t, b.log.console)
	for _, e := range b.thrown {
		t.Errorf("a page threw: %s", e)
	}
	for _, u := range b.log.urls {
		if strings.Contains(u, "cupid_sk_") {
			t.Fatalf("a key went into a URL: %s", u)
		}
	}
}
