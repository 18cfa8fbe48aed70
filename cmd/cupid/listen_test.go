package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cupid-match/cupid/config"
)

func TestServerFlagsOverTheConfiguration(t *testing.T) {
	base := config.Server{MaxConnections: 10, CORS: config.CORS{AllowedOrigins: []string{"https://a.example"}}}
	s, err := serverSettings(base, netFlags{})
	if err != nil || s.MaxConnections != 10 || s.CORS.AllowedOrigins[0] != "https://a.example" {
		t.Fatalf("no flags: %+v %v", s, err)
	}
	s, err = serverSettings(base, netFlags{maxConns: 3, tlsCert: "c.pem", tlsKey: "k.pem", corsOrigins: []string{"*"}})
	if err != nil || s.MaxConnections != 3 || s.TLS.CertFile != "c.pem" || s.TLS.KeyFile != "k.pem" || s.CORS.AllowedOrigins[0] != "*" {
		t.Fatalf("flags: %+v %v", s, err)
	}
	for _, c := range []struct {
		f    netFlags
		want string
	}{
		{netFlags{maxConns: -1}, "--max-connections: must be at least 1"},
		{netFlags{tlsCert: "c.pem"}, "--tls-cert needs --tls-key"},
		{netFlags{tlsKey: "k.pem"}, "--tls-key needs --tls-cert"},
		{netFlags{corsOrigins: []string{"https://a.example/x"}}, "--cors-origin: "},
	} {
		if _, err := serverSettings(base, c.f); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.f, err, c.want)
		}
	}
	// Through the command line: the flag's error stops serve before it
	// opens anything.
	if _, err := run("serve", "--data", t.TempDir(), "--tls-cert", "c.pem"); err == nil || !strings.Contains(err.Error(), "--tls-cert needs --tls-key") {
		t.Fatalf("serve --tls-cert alone: %v", err)
	}
}

// TestServeCapsConnections: with --max-connections 1, a second connection
// is refused while the first is open.
func TestServeCapsConnections(t *testing.T) {
	s := startServer(t, serveFlags{net: netFlags{maxConns: 1}})
	addr := strings.TrimPrefix(s.url, "http://")
	first, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	io.WriteString(first, "GET /healthz HTTP/1.1\r\nHost: cupid\r\n\r\n")
	first.SetReadDeadline(time.Now().Add(10 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(first), nil)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("the first connection: %v %v", res, err)
	}
	second, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	second.SetReadDeadline(time.Now().Add(10 * time.Second))
	b, err := io.ReadAll(second)
	if err != nil || !strings.HasPrefix(string(b), "HTTP/1.1 503") {
		t.Fatalf("the second connection got %q, %v; want a 503 and a close", b, err)
	}
}

// TestSlowClientsHoldLittle: headers are bounded (32 KiB by default, not
// Go's 1 MiB, since they are read before anyone is authenticated), and one
// client address that opens connections and stays silent takes only its
// share: /healthz still answers another client.
func TestSlowClientsHoldLittle(t *testing.T) {
	cfg := writeConfig(t, "queues:\n  - name: duel\n    ruleset:\n      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}\n"+
		"server: {max_connections: 6, max_connections_per_address: 3}\n")
	s := startServer(t, serveFlags{config: cfg})
	addr := strings.TrimPrefix(s.url, "http://")
	dial := func(from string) net.Conn {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	get := func(c net.Conn, header string) (int, string) {
		fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: cupid\r\n%s\r\n", header)
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return 0, err.Error()
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := get(dial("127.0.0.2"), "X-Big: "+strings.Repeat("x", 40<<10)+"\r\n"); code != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("40 KiB of headers: %d %q, want 431", code, body)
	}
	// One address holds its three connections, silent, and asks a
	// fourth: refused. Another address is served.
	for range 3 {
		dial("127.0.0.1")
	}
	if code, body := get(dial("127.0.0.1"), ""); code != http.StatusServiceUnavailable || !strings.Contains(body, "too many connections") {
		t.Fatalf("a fourth connection of one address: %d %q", code, body)
	}
	if code, body := get(dial("127.0.0.3"), ""); code != http.StatusOK {
		t.Fatalf("/healthz from another address while one holds its share: %d %q", code, body)
	}
}
