package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// findChromium returns the Chromium (or Chrome) binary to drive, or "".
// CUPID_CHROMIUM names one explicitly.
func findChromium() string {
	if p := os.Getenv("CUPID_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// servePage serves testdata/browser/index.html on a new 127.0.0.1 port and
// returns the page's origin.
func servePage(t *testing.T) string {
	t.Helper()
	page, err := os.ReadFile(filepath.Join("testdata", "browser", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			w.WriteHeader(http.StatusNoContent) // favicon.ico
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// netLog records, from Chromium's DevTools events, what the page's own
// JavaScript cannot see: the CORS preflights the browser sent and their
// answers, the requests that failed and why, the answers to WebSocket
// handshakes, and the browser's log lines.
type netLog struct {
	mu         sync.Mutex
	urls       map[network.RequestID]string
	preflights map[network.RequestID]string // URL
	answers    map[network.RequestID]int64  // HTTP status of each preflight
	failed     []*network.EventLoadingFailed
	sockets    map[network.RequestID]int64 // HTTP status of each WebSocket handshake answered
	wsErrors   []string
	console    []string
}

func newNetLog() *netLog {
	return &netLog{urls: map[network.RequestID]string{}, preflights: map[network.RequestID]string{},
		answers: map[network.RequestID]int64{}, sockets: map[network.RequestID]int64{}}
}

func (l *netLog) listen(ev any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		l.urls[ev.RequestID] = ev.Request.URL
		if ev.Type == network.ResourceTypePreflight || ev.Request.Method == http.MethodOptions {
			l.preflights[ev.RequestID] = ev.Request.URL
		}
	case *network.EventResponseReceived:
		if _, ok := l.preflights[ev.RequestID]; ok {
			l.answers[ev.RequestID] = ev.Response.Status
		}
	case *network.EventLoadingFailed:
		l.failed = append(l.failed, ev)
	case *network.EventWebSocketCreated:
		l.urls[ev.RequestID] = ev.URL
	case *network.EventWebSocketHandshakeResponseReceived:
		l.sockets[ev.RequestID] = ev.Response.Status
	case *network.EventWebSocketFrameError:
		l.wsErrors = append(l.wsErrors, ev.ErrorMessage)
	case *cdplog.EventEntryAdded:
		l.console = append(l.console, string(ev.Entry.Source)+": "+ev.Entry.Text)
	}
}

// TestBrowserCallsAcrossOrigins loads a page in headless Chromium that calls
// the server from another origin: a ticket created with Connect JSON, one
// with binary gRPC-Web, both through fetch() after a CORS preflight, and a
// WebSocket watch that delivers their match. The same page served from an
// origin not in server.cors.allowed_origins is refused: its fetches fail on
// the preflight's 403 and its WebSocket upgrade is refused.
func TestBrowserCallsAcrossOrigins(t *testing.T) {
	chromium := findChromium()
	if chromium == "" {
		t.Skip("chromium is not installed (apt-get install chromium, or set CUPID_CHROMIUM): the browser test is skipped")
	}
	allowedOrigin, deniedOrigin := servePage(t), servePage(t)

	// The demo queues, and the allowed page's origin.
	demo, err := os.ReadFile(filepath.Join("..", "..", "config", "demo.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "cupid.yaml")
	yaml := string(demo) + "\nserver:\n  cors:\n    allowed_origins: [\"" + allowedOrigin + "\"]\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, serveFlags{config: cfg})

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.NoSandbox, // CI runs as root
		chromedp.DisableGPU,
		chromedp.WindowSize(900, 900),
	)
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("starting %s: %v", chromium, err)
	}

	// load opens url in a new tab, waits for the page's result and returns
	// it with what the network log saw.
	load := func(t *testing.T, name, url string, result any) *netLog {
		t.Helper()
		l := newNetLog()
		tctx, cancelTab := chromedp.NewContext(bctx, chromedp.WithListener(l.listen))
		defer cancelTab()
		if _, err := chromedp.Call(tctx, network.Enable, network.EnableParams{}); err != nil {
			t.Fatalf("Network.enable: %v", err)
		}
		if _, err := chromedp.Call(tctx, cdplog.Enable, cdp.Empty{}); err != nil {
			t.Fatalf("Log.enable: %v", err)
		}
		wctx, cancelWait := context.WithTimeout(tctx, 15*time.Second)
		defer cancelWait()
		err := chromedp.Do(wctx,
			chromedp.Navigate(url),
			chromedp.WaitVisible(chromedp.CSS(`#result[data-done="1"]`)),
		)
		if err != nil {
			partial, _ := chromedp.Run(tctx, chromedp.Text(chromedp.CSS(`body`)))
			t.Fatalf("%s page %s: %v\npage so far:\n%s", name, url, err, partial)
		}
		text, err := chromedp.Run(tctx, chromedp.Text(chromedp.CSS(`#result`)))
		if err != nil {
			t.Fatal(err)
		}
		shot, err := chromedp.Run(tctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "browser-"+name+".png")
		if err := os.WriteFile(path, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s page: screenshot %s\n%s", name, path, text)
		if err := json.Unmarshal([]byte(text), result); err != nil {
			t.Fatalf("%s page wrote %q: %v", name, text, err)
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		return l
	}

	t.Run("allowed origin", func(t *testing.T) {
		var res struct {
			Error   string
			Origin  string
			Connect struct{ ID, State string }
			GrpcWeb struct {
				ID, ContentType, GrpcStatus string
				State                       int
				PlayerIDs                   []string
			}
			WS struct {
				Opened bool
				Kinds  []string
				Match  struct {
					ID    string
					Teams []struct{ TicketIDs, PlayerIDs []string }
				}
				CloseCode int
			}
			GetTicket struct{ State, MatchID string }
		}
		l := load(t, "allowed", allowedOrigin+"/?api="+s.url+"&mode=allowed", &res)
		if res.Error != "" {
			t.Fatalf("the page failed: %s", res.Error)
		}
		if res.Origin != allowedOrigin || strings.HasPrefix(s.url, allowedOrigin) {
			t.Fatalf("page origin %s, API %s: want two origins", res.Origin, s.url)
		}
		if res.Connect.ID == "" || res.Connect.State != "TICKET_STATE_WAITING" {
			t.Fatalf("Connect JSON CreateTicket gave %+v", res.Connect)
		}
		g := res.GrpcWeb
		if g.ID == "" || g.GrpcStatus != "0" || !strings.HasPrefix(g.ContentType, "application/grpc-web+proto") ||
			len(g.PlayerIDs) != 1 || g.PlayerIDs[0] != "browser-grpcweb-bob" {
			t.Fatalf("gRPC-Web CreateTicket gave %+v", g)
		}
		if !res.WS.Opened || strings.Join(res.WS.Kinds, ",") != "created,matched" || res.WS.CloseCode != 1000 {
			t.Fatalf("WebSocket: opened %v, events %v, close code %d; want created then matched, closed normally",
				res.WS.Opened, res.WS.Kinds, res.WS.CloseCode)
		}
		inMatch := map[string]bool{}
		for _, team := range res.WS.Match.Teams {
			for _, id := range team.TicketIDs {
				inMatch[id] = true
			}
		}
		if len(inMatch) != 2 || !inMatch[res.Connect.ID] || !inMatch[g.ID] {
			t.Fatalf("the match's tickets %v, want the Connect one %s and the gRPC-Web one %s", inMatch, res.Connect.ID, g.ID)
		}
		if res.GetTicket.State != "TICKET_STATE_MATCHED" || res.GetTicket.MatchID != res.WS.Match.ID {
			t.Fatalf("GetTicket of the gRPC-Web ticket: %+v, want matched in %s", res.GetTicket, res.WS.Match.ID)
		}
		// Both calls are "non-simple" (their Content-Type and protocol
		// headers), so the browser asked first; the server said yes.
		var answered int
		for id, url := range l.preflights {
			if status := l.answers[id]; status != http.StatusNoContent {
				t.Errorf("preflight of %s answered %d, want 204", url, status)
			}
			answered++
		}
		if answered == 0 {
			t.Errorf("the browser sent no CORS preflight; want one before the cross-origin calls")
		}
		for _, f := range l.failed {
			t.Errorf("request %s failed: %s (CORS: %+v)", l.urls[f.RequestID], f.ErrorText, f.CorsErrorStatus)
		}
		if len(l.sockets) != 1 {
			t.Errorf("WebSocket handshakes answered: %v, want one", l.sockets)
		}
		for id, status := range l.sockets {
			if status != http.StatusSwitchingProtocols {
				t.Errorf("WebSocket %s answered %d, want 101", l.urls[id], status)
			}
		}
		if t.Failed() {
			t.Logf("browser log: %q", l.console)
		}
	})

	t.Run("origin not allowed", func(t *testing.T) {
		// A real ticket, so the WebSocket is refused for its origin and not
		// for a missing ticket.
		tk := create(t, s.connectClient(), "duel", player("browser-target", 2900))
		var res struct {
			Error   string
			Origin  string
			Connect struct {
				OK    bool
				Error string
			}
			GrpcWeb struct {
				OK    bool
				Error string
			}
			WS struct {
				Opened, Error bool
				CloseCode     int
				Events        int
			}
		}
		l := load(t, "denied", deniedOrigin+"/?api="+s.url+"&mode=denied&ticket="+tk.GetId(), &res)
		if res.Error != "" {
			t.Fatalf("the page failed: %s", res.Error)
		}
		if res.Connect.OK || !strings.HasPrefix(res.Connect.Error, "TypeError") {
			t.Errorf("Connect fetch from %s: %+v, want a TypeError (blocked by CORS)", deniedOrigin, res.Connect)
		}
		if res.GrpcWeb.OK || !strings.HasPrefix(res.GrpcWeb.Error, "TypeError") {
			t.Errorf("gRPC-Web fetch from %s: %+v, want a TypeError (blocked by CORS)", deniedOrigin, res.GrpcWeb)
		}
		if res.WS.Opened || res.WS.Events != 0 || !res.WS.Error || res.WS.CloseCode != 1006 {
			t.Errorf("WebSocket from %s: %+v, want an error and close 1006 without opening", deniedOrigin, res.WS)
		}
		// The fetches failed on the server's 403 to the preflight, not on
		// an unreachable server.
		var refused int
		for id, url := range l.preflights {
			if status := l.answers[id]; status != http.StatusForbidden {
				t.Errorf("preflight of %s answered %d, want 403", url, status)
			}
			refused++
		}
		if refused == 0 {
			t.Errorf("the browser sent no CORS preflight")
		}
		var corsFailures int
		for _, f := range l.failed {
			if f.CorsErrorStatus != nil {
				corsFailures++
			}
		}
		if corsFailures != 2 {
			for _, f := range l.failed {
				t.Logf("failed: %s %s %+v", l.urls[f.RequestID], f.ErrorText, f.CorsErrorStatus)
			}
			t.Errorf("%d requests failed on CORS, want the 2 fetches", corsFailures)
		}
		// And the upgrade was refused by the server, with 403.
		if len(l.wsErrors) != 1 || !strings.Contains(l.wsErrors[0], "403") {
			t.Errorf("WebSocket errors %q, want the handshake refused with 403", l.wsErrors)
		}
		if t.Failed() {
			t.Logf("browser log: %q", l.console)
		}
	})
}
