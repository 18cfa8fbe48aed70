package main

import (
	"bufio"
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
