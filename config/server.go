package config

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// Server sets the HTTP server's limits, the browser origins it accepts and
// its TLS certificate. Every field may be absent; an absent (zero) one
// takes its default, which docs/configuration.md lists.
//
//	server:
//	  read_timeout: 30s
//	  max_connections: 10000
//	  cors: {allowed_origins: ["https://game.example.com"]}
//	  tls: {cert_file: cert.pem, key_file: key.pem}
type Server struct {
	// ReadHeaderTimeout bounds the reading of a request's headers, and the
	// wait for the first request on a new connection.
	ReadHeaderTimeout Duration `yaml:"read_header_timeout"`
	// ReadTimeout bounds the reading of one request's body.
	ReadTimeout Duration `yaml:"read_timeout"`
	// WriteTimeout bounds a unary call, from its headers to the last byte of
	// its answer; streams and WebSockets have none.
	WriteTimeout Duration `yaml:"write_timeout"`
	// IdleTimeout closes a keep-alive connection with no request for it.
	IdleTimeout Duration `yaml:"idle_timeout"`
	// MaxConnections bounds the connections open at once; one more is
	// refused (closed at once).
	MaxConnections int `yaml:"max_connections"`
	// MaxConnectionsPerAddress bounds the connections one client address
	// has open at once, so one client cannot take every slot; 0 (absent)
	// is a quarter of MaxConnections, at least 100 (ConnectionsPerAddress).
	MaxConnectionsPerAddress int `yaml:"max_connections_per_address"`
	// MaxHeaderBytes bounds a request's headers, read before the caller is
	// known: a slow client holds at most this much memory per connection.
	MaxHeaderBytes int `yaml:"max_header_bytes"`
	// MaxRequestBytes bounds a request body (one message).
	MaxRequestBytes int `yaml:"max_request_bytes"`
	// MaxWatchersPerTicket bounds the open watches (streams and WebSockets)
	// of one ticket; MaxWatchers those of the whole server. One more is
	// refused with resource_exhausted.
	MaxWatchersPerTicket int `yaml:"max_watchers_per_ticket"`
	MaxWatchers          int `yaml:"max_watchers"`
	// CORS lists the browser origins allowed to call the API.
	CORS CORS `yaml:"cors"`
	// TLS serves HTTPS (and HTTP/2 over TLS) with a certificate from files.
	TLS TLS `yaml:"tls"`
	// RateLimits give each caller a token bucket (ratelimit.go).
	RateLimits RateLimits `yaml:"rate_limits"`
}

// CORS is the browser origins allowed to call the API and open WebSockets:
// "https://game.example.com", or "*" for any. Empty: no page of another
// origin may (clients that are not browsers send no Origin and are not
// concerned).
type CORS struct {
	AllowedOrigins []string `yaml:"allowed_origins"`
}

// TLS names a certificate and its key, PEM files; both or neither. They
// are read again when they change, so a renewed certificate needs no
// restart.
type TLS struct {
	CertFile string `yaml:"cert_file"`
	KeyFile  string `yaml:"key_file"`
}

// The defaults of the server section.
const (
	DefaultReadHeaderTimeout    = 10 * time.Second
	DefaultReadTimeout          = 30 * time.Second
	DefaultWriteTimeout         = 30 * time.Second
	DefaultIdleTimeout          = 2 * time.Minute
	DefaultMaxConnections       = 10_000
	DefaultMaxRequestBytes      = 1 << 20
	DefaultMaxHeaderBytes       = 32 << 10
	DefaultMaxWatchersPerTicket = 2 * cupid.MaxPlayersPerTicket
	DefaultMaxWatchers          = 100_000
	// MaxRequestBytesLimit is the most max_request_bytes may be.
	MaxRequestBytesLimit = 64 << 20
	maxTimeout           = 24 * time.Hour
)

// check refuses bad values naming the setting, reporting them to doc, fills
// absent ones with their defaults and resolves the TLS files against dir.
func (s *Server) check(doc *document, dir string) {
	for _, d := range []struct {
		field string
		v     *Duration
		def   time.Duration
	}{
		{"server.read_header_timeout", &s.ReadHeaderTimeout, DefaultReadHeaderTimeout},
		{"server.read_timeout", &s.ReadTimeout, DefaultReadTimeout},
		{"server.write_timeout", &s.WriteTimeout, DefaultWriteTimeout},
		{"server.idle_timeout", &s.IdleTimeout, DefaultIdleTimeout},
	} {
		if *d.v < 0 || time.Duration(*d.v) > maxTimeout {
			doc.report(cupid.Invalid(d.field, "must be more than 0 and at most %v, got %v", maxTimeout, time.Duration(*d.v)))
			continue
		}
		if *d.v == 0 {
			*d.v = Duration(d.def)
		}
	}
	requestBytesOK := doc.known("server.max_request_bytes")
	for _, n := range []struct {
		field    string
		v        *int
		def, max int
	}{
		{"server.max_connections", &s.MaxConnections, DefaultMaxConnections, 1 << 20},
		{"server.max_connections_per_address", &s.MaxConnectionsPerAddress, 0, 1 << 20},
		{"server.max_header_bytes", &s.MaxHeaderBytes, DefaultMaxHeaderBytes, 1 << 20},
		{"server.max_request_bytes", &s.MaxRequestBytes, DefaultMaxRequestBytes, MaxRequestBytesLimit},
		{"server.max_watchers_per_ticket", &s.MaxWatchersPerTicket, DefaultMaxWatchersPerTicket, 1 << 20},
		{"server.max_watchers", &s.MaxWatchers, DefaultMaxWatchers, 1 << 24},
	} {
		if *n.v < 0 || *n.v > n.max {
			def := fmt.Sprint(n.def)
			if n.def == 0 {
				def = "the default"
			}
			doc.report(cupid.Invalid(n.field, "must be between 1 and %d (0 or absent means %s), got %d", n.max, def, *n.v))
			if n.v == &s.MaxRequestBytes {
				requestBytesOK = false
			}
			continue
		}
		if *n.v == 0 {
			*n.v = n.def
		}
	}
	s.RateLimits.check(doc)
	if doc.known("server.max_header_bytes") && s.MaxHeaderBytes > 0 && s.MaxHeaderBytes < 4096 {
		doc.report(cupid.Invalid("server.max_header_bytes", "must be at least 4096, got %d", s.MaxHeaderBytes))
	}
	if requestBytesOK && s.MaxRequestBytes < 1024 {
		doc.report(cupid.Invalid("server.max_request_bytes", "must be at least 1024, got %d", s.MaxRequestBytes))
	}
	for i, o := range s.CORS.AllowedOrigins {
		if err := CheckOrigin(o); err != nil {
			doc.report(cupid.Invalid(fmt.Sprintf("server.cors.allowed_origins[%d]", i), "%v", err))
		}
	}
	if !doc.known("server.tls") {
		return // whether both files are given is not known
	}
	switch {
	case s.TLS.CertFile == "" && s.TLS.KeyFile == "":
	case s.TLS.CertFile == "":
		doc.report(cupid.Invalid("server.tls.cert_file", "is required with key_file"))
	case s.TLS.KeyFile == "":
		doc.report(cupid.Invalid("server.tls.key_file", "is required with cert_file"))
	default:
		if !filepath.IsAbs(s.TLS.CertFile) {
			s.TLS.CertFile = filepath.Join(dir, s.TLS.CertFile)
		}
		if !filepath.IsAbs(s.TLS.KeyFile) {
			s.TLS.KeyFile = filepath.Join(dir, s.TLS.KeyFile)
		}
	}
}

// CheckOrigin accepts "*" or an origin as browsers send it: a scheme, a
// host and an optional port, with no path ("https://game.example.com",
// "http://localhost:3000").
func CheckOrigin(o string) error {
	if o == "*" {
		return nil
	}
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf(`%q is not an origin such as "https://game.example.com" (or "*" for any)`, o)
	}
	if u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("%q is not an origin: an origin is a scheme, a host and a port, without a path", o)
	}
	if strings.ToLower(o) != o {
		return fmt.Errorf("%q is not an origin as browsers send it: write it in lower case", o)
	}
	return nil
}

// ConnectionsPerAddress is how many connections one client address may
// have open at once: max_connections_per_address, or by default a quarter
// of MaxConnections and at least 100 (never more than MaxConnections), so
// that four clients are needed to fill the server and a test or a load
// run from one machine is not cut short. Behind a load balancer every
// client has its address: set it to max_connections there.
func (s Server) ConnectionsPerAddress() int {
	if s.MaxConnectionsPerAddress > 0 {
		return min(s.MaxConnectionsPerAddress, s.MaxConnections)
	}
	return min(max(s.MaxConnections/4, 100), s.MaxConnections)
}
