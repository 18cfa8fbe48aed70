package api

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/coder/websocket"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// shortTimeouts is an env whose requests must arrive and be answered
// quickly, and whose connections may idle only briefly.
func shortTimeouts(t *testing.T, read, write, idle time.Duration) *env {
	return newEnv(t, envOptions{
		options: func(o *Options) { o.Limits.ReadTimeout, o.Limits.WriteTimeout = read, write },
		server: func(s *http.Server) {
			s.ReadHeaderTimeout = idle
			s.IdleTimeout = idle
		},
	})
}

// dialRaw opens a plain TCP connection to the env's server.
func (e *env) dialRaw(t *testing.T) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(e.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedWithin reads c until the server closes it, failing unless that
// happens within limit. It returns what the server wrote and how long it
// took.
func closedWithin(t *testing.T, c net.Conn, limit time.Duration) (string, time.Duration) {
	t.Helper()
	start := time.Now()
	c.SetReadDeadline(start.Add(limit))
	b, err := io.ReadAll(c)
	took := time.Since(start)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the connection was still open after %v (read %q)", limit, b)
	}
	return string(b), took
}

func TestSlowBodyIsCutOff(t *testing.T) {
	e := shortTimeouts(t, 300*time.Millisecond, time.Second, 5*time.Second)
	c := e.dialRaw(t)
	// Headers promise 1000 bytes; 9 come, then nothing.
	io.WriteString(c, "POST /cupid.v1.TicketService/CreateTicket HTTP/1.1\r\nHost: cupid\r\n"+
		"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"queue\":")
	out, took := closedWithin(t, c, 5*time.Second)
	if took < 250*time.Millisecond {
		t.Fatalf("closed after %v, before the read timeout: %q", took, out)
	}
	if strings.HasPrefix(out, "HTTP/1.1 200") {
		t.Fatalf("a cut-off body was served: %q", out)
	}
	// The server still serves.
	e.createJSON("after", 1500)
}

func TestIdleConnectionsAreClosed(t *testing.T) {
	e := shortTimeouts(t, time.Second, time.Second, 300*time.Millisecond)
	t.Run("silent from the start", func(t *testing.T) {
		_, took := closedWithin(t, e.dialRaw(t), 5*time.Second)
		if took < 250*time.Millisecond {
			t.Fatalf("closed after %v, before the timeout", took)
		}
	})
	t.Run("idle after a request", func(t *testing.T) {
		c := e.dialRaw(t)
		io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: cupid\r\n\r\n")
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("healthz: %v %v", res, err)
		}
		io.Copy(io.Discard, res.Body)
		closedWithin(t, c, 5*time.Second)
	})
}

// TestStreamsOutliveTheTimeouts: the read and write timeouts bound calls,
// not watches — a WatchTicket stream over HTTP/1.1 and over HTTP/2 and a
// WebSocket all still get the final event long after both have passed.
func TestStreamsOutliveTheTimeouts(t *testing.T) {
	e := shortTimeouts(t, 100*time.Millisecond, 100*time.Millisecond, 100*time.Millisecond)
	id := e.createJSON("alice", 1500)
	json := watch(t, e.client(), id, 0)
	json.next("created")
	grpc := watch(t, e.clients()["grpc"], id, 0)
	grpc.next("created")
	ws := e.socket(t, id, "")
	readEvent(t, ws, "created")
	time.Sleep(500 * time.Millisecond)
	e.post("CancelTicket", `{"id":"`+id+`"}`).ok(t)
	json.next("cancelled")
	json.end()
	grpc.next("cancelled")
	grpc.end()
	readEvent(t, ws, "cancelled")
	wantNormalClose(t, ws)
}

func TestConnectionCap(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	limited := LimitListener(ln, 2, 0, true)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })}
	go srv.Serve(limited)
	t.Cleanup(func() { srv.Close() })
	addr := ln.Addr().String()
	get := func(c net.Conn) (*http.Response, error) {
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: cupid\r\n\r\n")
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		return http.ReadResponse(bufio.NewReader(c), nil)
	}
	var open []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if res, err := get(c); err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("a connection within the cap: %v %v", res, err)
		}
		open = append(open, c)
	}
	extra, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer extra.Close()
	out, _ := closedWithin(t, extra, 5*time.Second)
	if !strings.HasPrefix(out, "HTTP/1.1 503") || !strings.Contains(out, "too many connections") {
		t.Fatalf("the connection past the cap got %q", out)
	}
	if limited.Refused() != 1 || limited.Open() != 2 {
		t.Fatalf("refused %d, open %d; want 1 and 2", limited.Refused(), limited.Open())
	}
	// A closed connection frees its place.
	open[0].Close()
	deadline := time.Now().Add(5 * time.Second)
	for limited.Open() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("%d open after a close", limited.Open())
		}
		time.Sleep(10 * time.Millisecond)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if res, err := get(c); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("a connection after one closed: %v %v", res, err)
	}
}

func TestWatcherCaps(t *testing.T) {
	e := newEnv(t, envOptions{options: func(o *Options) {
		o.Limits.MaxWatchersPerTicket = 2
		o.Limits.MaxWatchers = 3
	}})
	a := e.createJSON("alice", 1500)
	b := e.createJSON("bob", 9000)
	ctx, cancel := context.WithTimeout(context.Background(), watchTimeout)
	defer cancel()
	first := watch(t, e.client(), a, 0)
	first.next("created")
	watch(t, e.clients()["grpc"], a, 0).next("created")

	refused := func(id string) {
		t.Helper()
		s, err := e.client().WatchTicket(ctx, connect.NewRequest(&cupidv1.WatchTicketRequest{Id: id}))
		if err == nil {
			defer s.Close()
			if s.Receive() {
				t.Fatalf("a watch past the cap got %v", s.Msg())
			}
			err = s.Err()
		}
		if connect.CodeOf(err) != connect.CodeResourceExhausted {
			t.Fatalf("a watch past the cap: %v, want resource_exhausted", err)
		}
		// The WebSocket is refused before the upgrade, with a readable
		// answer.
		r := e.get("/v1/tickets/" + id + "/ws")
		if r.status != http.StatusTooManyRequests {
			t.Fatalf("a socket past the cap: %d %s", r.status, r.raw)
		}
		r.refused(t, connect.CodeResourceExhausted, "watchers")
	}
	refused(a) // two on a: its cap
	third := watch(t, e.client(), b, 0)
	third.next("created")
	refused(b) // three in all: the server's cap

	// An ended watch frees its place.
	first.stream.Close()
	deadline := time.Now().Add(watchTimeout)
	for {
		u := strings.Replace(e.url, "http", "ws", 1) + "/v1/tickets/" + b + "/ws"
		ws, _, err := websocket.Dial(ctx, u, nil)
		if err == nil {
			defer ws.CloseNow()
			readEvent(t, ws, "created")
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no watch after one ended: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestConnectionCapPerAddress: one client address holds at most its share
// of the connections; another address still gets in, and a closed
// connection gives its address a place back.
func TestConnectionCapPerAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	limited := LimitListener(ln, 10, 2, true)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })}
	go srv.Serve(limited)
	t.Cleanup(func() { srv.Close() })
	dial := func(from string) net.Conn {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
		c, err := d.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	get := func(c net.Conn) int {
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: cupid\r\n\r\n")
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return 0
		}
		res.Body.Close()
		return res.StatusCode
	}
	a1, a2 := dial("127.0.0.1"), dial("127.0.0.1")
	if get(a1) != http.StatusOK || get(a2) != http.StatusOK {
		t.Fatal("two connections of one address, within its share, were refused")
	}
	a3 := dial("127.0.0.1")
	if out, _ := closedWithin(t, a3, 5*time.Second); !strings.Contains(out, "too many connections") {
		t.Fatalf("a third connection of one address got %q", out)
	}
	if b := dial("127.0.0.2"); get(b) != http.StatusOK {
		t.Fatal("another address was refused while the first held its share")
	}
	a1.Close()
	deadline := time.Now().Add(5 * time.Second)
	for limited.Open() != 2 {
		if time.Now().After(deadline) {
			t.Fatalf("%d open after a close", limited.Open())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if get(dial("127.0.0.1")) != http.StatusOK {
		t.Fatal("the address did not get its place back after a close")
	}
}
