package config

import (
	"strings"
	"testing"
	"time"
)

func TestServerDefaults(t *testing.T) {
	cfg, err := ParseConfig([]byte(oneQueue), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Server
	if time.Duration(s.ReadHeaderTimeout) != DefaultReadHeaderTimeout || time.Duration(s.ReadTimeout) != DefaultReadTimeout ||
		time.Duration(s.WriteTimeout) != DefaultWriteTimeout || time.Duration(s.IdleTimeout) != DefaultIdleTimeout ||
		s.MaxConnections != DefaultMaxConnections || s.MaxRequestBytes != DefaultMaxRequestBytes ||
		s.MaxWatchersPerTicket != DefaultMaxWatchersPerTicket || s.MaxWatchers != DefaultMaxWatchers ||
		len(s.CORS.AllowedOrigins) != 0 || s.TLS != (TLS{}) {
		t.Fatalf("defaults: %+v", s)
	}
	demo, err := DemoConfig()
	if err != nil || demo.Server.MaxConnections != DefaultMaxConnections {
		t.Fatalf("the demo has no server defaults: %+v %v", demo, err)
	}
}

func TestServerBadValues(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"server: {read_timeout: -1s}", "server.read_timeout: must be more than 0 and at most 24h0m0s, got -1s"},
		{"server: {idle_timeout: 25h}", "server.idle_timeout: must be more than 0 and at most 24h0m0s"},
		{"server: {write_timeout: soon}", "server.write_timeout: "},
		{"server: {max_connections: -5}", "server.max_connections: must be between 1 and 1048576 (0 or absent means 10000), got -5"},
		{"server: {max_request_bytes: 100}", "server.max_request_bytes: must be at least 1024, got 100"},
		{"server: {max_request_bytes: 1000000000}", "server.max_request_bytes: must be between 1 and 67108864"},
		{"server: {max_watchers: lots}", "server.max_watchers: must be a whole number"},
		{"server: {max_conections: 5}", "server.max_conections: unknown setting; did you mean max_connections?"},
		{"server: {cors: {allowed_origins: ['https://a.example/path']}}", "server.cors.allowed_origins[0]: \"https://a.example/path\" is not an origin"},
		{"server: {cors: {allowed_origins: ['a.example']}}", "server.cors.allowed_origins[0]: \"a.example\" is not an origin such as"},
		{"server: {cors: {allowed_origins: ['https://A.example']}}", "lower case"},
		{"server: {cors: {allowed_origins: 'https://a.example'}}", "server.cors.allowed_origins: must be a list"},
		{"server: {tls: {cert_file: c.pem}}", "server.tls.key_file: is required with cert_file"},
		{"server: {max_header_bytes: 100}", "server.max_header_bytes: must be at least 4096, got 100"},
		{"server: {max_header_bytes: 2000000}", "server.max_header_bytes: must be between 1 and 1048576"},
		{"server: {max_connections_per_address: -1}", "server.max_connections_per_address: must be between 1 and 1048576 (0 or absent means the default), got -1"},
		{"server: {tls: {key_file: k.pem}}", "server.tls.cert_file: is required with key_file"},
	} {
		_, err := ParseConfig([]byte(oneQueue+c.yaml+"\n"), t.TempDir())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.yaml, err, c.want)
		}
	}
}

// TestConnectionsPerAddress: by default one address may hold a quarter of
// the connections, at least 100 and never more than all of them.
func TestConnectionsPerAddress(t *testing.T) {
	for _, c := range []struct{ max, per, want int }{
		{10000, 0, 2500},
		{200, 0, 100},
		{3, 0, 3},
		{10000, 10000, 10000},
		{10, 50, 10},
	} {
		s := Server{MaxConnections: c.max, MaxConnectionsPerAddress: c.per}
		if got := s.ConnectionsPerAddress(); got != c.want {
			t.Errorf("max %d, per address %d: %d, want %d", c.max, c.per, got, c.want)
		}
	}
}
