package main

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"
)

// certReloader serves a certificate from files and reads them again when
// they change, so a renewed certificate (certbot, cert-manager) is picked up
// without a restart. It looks at the files' modification times and sizes at
// most once per interval, on a TLS handshake; a pair that fails to load
// keeps the one before in service and is logged.
type certReloader struct {
	certFile, keyFile string
	src               tlsSource
	log               *slog.Logger
	interval          time.Duration

	mu      sync.Mutex
	cert    *tls.Certificate
	stamp   [2]fileStamp
	checked time.Time
}

// fileStamp is what says a file changed.
type fileStamp struct {
	mod  time.Time
	size int64
}

func stampOf(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, err
	}
	return fileStamp{mod: fi.ModTime(), size: fi.Size()}, nil
}

// newCertReloader loads the pair once, so a bad certificate stops the
// server at start rather than at the first handshake.
func newCertReloader(certFile, keyFile string, log *slog.Logger) (*certReloader, error) {
	return newCertReloaderFrom(certFile, keyFile, flagTLS, log)
}

// tlsSource names where a certificate pair was given, for its errors.
type tlsSource struct{ cert, key string }

var (
	flagTLS   = tlsSource{"--tls-cert", "--tls-key"}
	configTLS = tlsSource{"server.tls.cert_file", "server.tls.key_file"}
)

// newCertReloaderFrom is newCertReloader for a pair given by src.
func newCertReloaderFrom(certFile, keyFile string, src tlsSource, log *slog.Logger) (*certReloader, error) {
	r := &certReloader{certFile: certFile, keyFile: keyFile, src: src, log: log, interval: time.Second}
	if err := r.load(); err != nil {
		return nil, err
	}
	return r, nil
}

// load reads the pair and its stamps; r.mu is held or r is new.
func (r *certReloader) load() error {
	cs, err := stampOf(r.certFile)
	if err != nil {
		return fmt.Errorf("%s: %w", r.src.cert, err)
	}
	ks, err := stampOf(r.keyFile)
	if err != nil {
		return fmt.Errorf("%s: %w", r.src.key, err)
	}
	cert, err := tls.LoadX509KeyPair(r.certFile, r.keyFile)
	if err != nil {
		return fmt.Errorf("%s %s, %s %s: %w", r.src.cert, r.certFile, r.src.key, r.keyFile, err)
	}
	r.cert, r.stamp = &cert, [2]fileStamp{cs, ks}
	return nil
}

// GetCertificate is tls.Config.GetCertificate.
func (r *certReloader) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	if now.Sub(r.checked) < r.interval {
		return r.cert, nil
	}
	r.checked = now
	cs, err1 := stampOf(r.certFile)
	ks, err2 := stampOf(r.keyFile)
	if err1 != nil || err2 != nil || [2]fileStamp{cs, ks} == r.stamp {
		// Unchanged, or in the middle of being replaced: keep serving.
		return r.cert, nil
	}
	old := r.stamp
	if err := r.load(); err != nil {
		// A certificate written before its key (or the other way round)
		// fails until both are there; try again at the next check.
		r.stamp = old
		if r.log != nil {
			r.log.Warn("TLS certificate changed but does not load; keeping the previous one", "err", err)
		}
		return r.cert, nil
	}
	if r.log != nil {
		r.log.Info("TLS certificate reloaded", "cert", r.certFile)
	}
	return r.cert, nil
}

// tlsConfig is the server's TLS: TLS 1.2 or newer, the certificate from
// the reloader. http.Server adds HTTP/2 to its protocols.
func tlsConfig(r *certReloader) *tls.Config {
	return &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: r.GetCertificate}
}
