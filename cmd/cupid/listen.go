package main

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/cupid-match/cupid/api"
	"github.com/cupid-match/cupid/config"
)

// netFlags are serve's flags for the network side; each overrides its
// setting in the configuration's server section when given.
type netFlags struct {
	maxConns    int
	tlsCert     string
	tlsKey      string
	corsOrigins []string
}

func addNetFlags(cmd *cobra.Command, f *netFlags) {
	cmd.Flags().IntVar(&f.maxConns, "max-connections", 0, "connections open at once; one more is closed at once (0: server.max_connections of --config, 10000 by default)")
	cmd.Flags().StringVar(&f.tlsCert, "tls-cert", "", "PEM certificate file: serve HTTPS and HTTP/2 over TLS (with --tls-key); reloaded when it changes")
	cmd.Flags().StringVar(&f.tlsKey, "tls-key", "", "PEM private key file of --tls-cert")
	cmd.Flags().StringSliceVar(&f.corsOrigins, "cors-origin", nil, `browser origin allowed to call the API and open WebSockets, as https://game.example.com, or "*" (repeat or separate with commas; replaces server.cors.allowed_origins)`)
}

// tlsSourceOf says where the certificate pair serve uses was given: the
// flags win over the configuration's server.tls.
func tlsSourceOf(f netFlags) tlsSource {
	if f.tlsCert != "" {
		return flagTLS
	}
	return configTLS
}

// serverSettings lays the flags over the configuration's server section,
// checking what the flags give as the configuration checks its own.
func serverSettings(s config.Server, f netFlags) (config.Server, error) {
	switch {
	case f.maxConns < 0:
		return s, fmt.Errorf("--max-connections: must be at least 1 (or 0 for the configuration's), got %d", f.maxConns)
	case f.maxConns > 0:
		s.MaxConnections = f.maxConns
	}
	switch {
	case f.tlsCert == "" && f.tlsKey == "":
	case f.tlsCert == "":
		return s, fmt.Errorf("--tls-key needs --tls-cert")
	case f.tlsKey == "":
		return s, fmt.Errorf("--tls-cert needs --tls-key")
	default:
		s.TLS = config.TLS{CertFile: f.tlsCert, KeyFile: f.tlsKey}
	}
	if len(f.corsOrigins) > 0 {
		for _, o := range f.corsOrigins {
			if err := config.CheckOrigin(o); err != nil {
				return s, fmt.Errorf("--cors-origin: %w", err)
			}
		}
		s.CORS.AllowedOrigins = f.corsOrigins
	}
	return s, nil
}

// apiLimits are the handler's limits from the server section.
func apiLimits(s config.Server) api.Limits {
	return api.Limits{
		ReadTimeout:          time.Duration(s.ReadTimeout),
		WriteTimeout:         time.Duration(s.WriteTimeout),
		MaxRequestBytes:      s.MaxRequestBytes,
		MaxWatchersPerTicket: s.MaxWatchersPerTicket,
		MaxWatchers:          s.MaxWatchers,
	}
}

// listen opens the server's listener, capped at max_connections, and its
// TLS configuration when a certificate is given (nil otherwise).
// src says whether the pair came from the flags or the configuration.
func listen(addr string, s config.Server, src tlsSource, log *slog.Logger) (net.Listener, *tls.Config, error) {
	var tc *tls.Config
	if s.TLS.CertFile != "" {
		r, err := newCertReloaderFrom(s.TLS.CertFile, s.TLS.KeyFile, src, log)
		if err != nil {
			return nil, nil, err
		}
		tc = tlsConfig(r)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("--addr: %w", err)
	}
	return api.LimitListener(ln, s.MaxConnections, s.ConnectionsPerAddress(), tc == nil), tc, nil
}

// configureServer applies the server section's timeouts and TLS to the
// HTTP server. The body and call timeouts are the handler's, per request
// (api.Limits), so that streams live on.
func configureServer(srv *http.Server, s config.Server, tc *tls.Config) {
	srv.ReadHeaderTimeout = time.Duration(s.ReadHeaderTimeout)
	// Headers are read before the caller is known: Go's default lets
	// each connection hold 1 MiB of them.
	srv.MaxHeaderBytes = s.MaxHeaderBytes
	srv.IdleTimeout = time.Duration(s.IdleTimeout)
	if tc != nil {
		srv.TLSConfig = tc
		if srv.Protocols == nil {
			srv.Protocols = new(http.Protocols)
			srv.Protocols.SetHTTP1(true)
		}
		srv.Protocols.SetHTTP2(true)
	}
}

// serveOn serves on the listener, over TLS when configured.
func serveOn(srv *http.Server, ln net.Listener) error {
	if srv.TLSConfig != nil {
		return srv.ServeTLS(ln, "", "")
	}
	return srv.Serve(ln)
}
