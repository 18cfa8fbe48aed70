package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	_ "net/http/pprof" // mounted only with --pprof
	"os"
	"os/signal"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"

	"github.com/cupid-match/cupid/api"
	"github.com/cupid-match/cupid/config"
	"github.com/cupid-match/cupid/matchmaker"
	"github.com/cupid-match/cupid/matchmaker/opponentsvc"
	"github.com/cupid-match/cupid/matchmaker/pairingsvc"
	"github.com/cupid-match/cupid/sqlite"
)

// DefaultAddr is where the server listens when --addr is not given.
const DefaultAddr = "127.0.0.1:7070"

type serveFlags struct {
	addr      string
	data      string
	config    string
	logFormat string
	logLevel  string
	pprof     bool

	// hooks lets in-process tests drive the clock; nil in the binary.
	hooks *serveHooks
}

// serveHooks are test seams: a clock to replace time.Now, and a callback
// with the matchmaker once it runs (to wake pools after moving the clock).
type serveHooks struct {
	now     func() time.Time
	started func(*matchmaker.Service)
}

func serveCmd() *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the server (embedded SQLite store, built-in demo queues unless --config is given)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, err := newLogger(f.logFormat, f.logLevel)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return serve(ctx, f, log, nil)
		},
	}
	cmd.Flags().StringVar(&f.addr, "addr", DefaultAddr, "address to listen on (host:port; :7070 for every interface)")
	cmd.Flags().StringVar(&f.data, "data", "cupid-data", "directory of the embedded database")
	cmd.Flags().StringVar(&f.config, "config", "", "YAML configuration file (queues and rulesets); the built-in demo when empty")
	cmd.Flags().StringVar(&f.logFormat, "log-format", "text", "log format: text or json")
	cmd.Flags().StringVar(&f.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	cmd.Flags().BoolVar(&f.pprof, "pprof", false, "serve Go's profiler under /debug/pprof/ (for measurements; keep it off in production)")
	return cmd
}

func newLogger(format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(os.Stderr, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(os.Stderr, opts)), nil
	}
	return nil, fmt.Errorf("--log-format: %q is neither text nor json", format)
}

// serve runs the server until ctx ends. When listening is not nil it
// receives the bound address (tests listen on port 0).
func serve(ctx context.Context, f serveFlags, log *slog.Logger, listening chan<- string) error {
	var cfg *config.Config
	var err error
	if f.config == "" {
		cfg, err = config.DemoConfig()
	} else {
		cfg, err = config.LoadConfig(f.config)
	}
	if err != nil {
		return err
	}
	dbPath := filepath.Join(f.data, "cupid.db")
	store, err := sqlite.Open(dbPath)
	if err != nil {
		return err
	}
	defer store.Close()

	var now func() time.Time
	if f.hooks != nil {
		now = f.hooks.now
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mm, err := matchmaker.New(matchmaker.Options{
		Store: store, Documents: store, Config: cfg, Logger: log, Registry: reg, Now: now,
		Seed: uint64(time.Now().UnixNano()),
	})
	if err != nil {
		return err
	}
	pairings, err := pairingsvc.New(pairingsvc.Options{Docs: store, Config: cfg.Pairing, Logger: log, Registry: reg, Now: now})
	if err != nil {
		return err
	}
	opponents, err := opponentsvc.New(opponentsvc.Options{Docs: store, Config: cfg.Opponents, Logger: log, Registry: reg, Now: now})
	if err != nil {
		return err
	}
	var ready atomic.Bool
	handler := api.Handler(api.Options{
		Matchmaker: mm, Pairing: pairings, Opponents: opponents,
		Logger: log, Gatherer: reg, Ready: &ready, Now: now,
	})

	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fmt.Errorf("--addr: %w", err)
	}
	if f.pprof {
		mux := http.NewServeMux()
		mux.Handle("/debug/pprof/", http.DefaultServeMux)
		mux.Handle("/", handler)
		handler = mux
	}
	protocols := new(http.Protocols)
	protocols.SetHTTP1(true)
	protocols.SetUnencryptedHTTP2(true) // gRPC without TLS
	srv := &http.Server{
		Handler:           handler,
		Protocols:         protocols,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	source := "built-in demo"
	if f.config != "" {
		source = f.config
	}
	log.Info("configuration loaded", "source", source, "queues", mm.Queues(), "data", dbPath)
	if err := mm.Start(ctx); err != nil {
		ln.Close()
		return err
	}
	defer mm.Close()
	if err := pairings.Start(ctx); err != nil {
		ln.Close()
		return err
	}
	defer pairings.Close()
	if err := opponents.Start(ctx); err != nil {
		ln.Close()
		return err
	}
	defer opponents.Close()
	ready.Store(true)
	if f.hooks != nil && f.hooks.started != nil {
		f.hooks.started(mm)
	}
	addr := ln.Addr().String()
	log.Info("listening", "addr", addr, "api", "http://"+addr)
	if listening != nil {
		listening <- addr
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	ready.Store(false)
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// End watch streams so Shutdown need not wait for them.
	mm.Close()
	pairings.Close()
	opponents.Close()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}
