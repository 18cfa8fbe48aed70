package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	_ "net/http/pprof" // mounted only with --pprof
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"connectrpc.com/otelconnect"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/api"
	"github.com/cupid-match/cupid/cluster"
	"github.com/cupid-match/cupid/config"
	"github.com/cupid-match/cupid/internal/tracing"
	"github.com/cupid-match/cupid/postgres"
	"github.com/cupid-match/cupid/service/opponentsvc"
	"github.com/cupid-match/cupid/service/pairingsvc"
	"github.com/cupid-match/cupid/service/partysvc"
	"github.com/cupid-match/cupid/service/retentionsvc"
	"github.com/cupid-match/cupid/service/ticketsvc"
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
	gcPercent int
	store     string
	// nodeID and leaseTTL make this process one node of several on a
	// PostgreSQL store (cluster.go).
	nodeID    string
	leaseTTL  time.Duration
	advertise string
	// net: connections, TLS and browser origins (listen.go).
	net netFlags
	// serverKeysFile and initKeys give a configuration without an auth
	// section its server keys (keysfile.go): the image's way to start safe.
	serverKeysFile string
	initKeys       bool
	// tracing sends OpenTelemetry traces when its endpoint is set.
	tracing tracing.Config
	// stdout receives what is printed for the operator rather than logged
	// (a key made by --init-keys); os.Stdout when nil.
	stdout io.Writer

	// hooks lets in-process tests drive the clock; nil in the binary.
	hooks *serveHooks
}

// serveHooks are test seams: a clock to replace time.Now, and a callback
// with the matchmaker once it runs (to wake pools after moving the clock).
type serveHooks struct {
	now     func() time.Time
	started func(*ticketsvc.Service)
	parties func(*partysvc.Service)
	// retention is given the retention service before it starts.
	retention func(*retentionsvc.Service)
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
			if err := setGCPercent(f.gcPercent, cmd.Flags().Changed("gc-percent")); err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return serve(ctx, f, log, nil)
		},
	}
	cmd.Flags().StringVar(&f.addr, "addr", DefaultAddr, "address to listen on (host:port; :7070 for every interface)")
	cmd.Flags().StringVar(&f.data, "data", "cupid-data", "directory of the embedded database")
	cmd.Flags().StringVar(&f.store, "store", "sqlite", "where tickets are kept: sqlite (a file in --data) or a postgres:// URL")
	cmd.Flags().StringVar(&f.config, "config", "", "YAML configuration file (queues and rulesets); the built-in demo when empty")
	cmd.Flags().StringVar(&f.logFormat, "log-format", "text", "log format: text or json")
	cmd.Flags().StringVar(&f.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	cmd.Flags().IntVar(&f.gcPercent, "gc-percent", 50, "Go's garbage collection target (GOGC): lower keeps resident memory nearer the live tickets at some CPU; GOGC in the environment wins unless this flag is given")
	cmd.Flags().BoolVar(&f.pprof, "pprof", false, "serve Go's profiler under /debug/pprof/ (for measurements; keep it off in production)")
	cmd.Flags().StringVar(&f.nodeID, "node-id", "", "with a postgres:// --store: this node's name among the nodes sharing the database (default: host, process id and a random suffix)")
	cmd.Flags().StringVar(&f.advertise, "advertise", "", "with a postgres:// --store: host:port at which the other nodes reach this one, to hand it the speed-dating calls they get (default: the address it listens on)")
	cmd.Flags().DurationVar(&f.leaseTTL, "lease-ttl", defaultLeaseTTL, "with a postgres:// --store: how long a node's hold on its queues lasts unrenewed, the longest its queues wait for another node after it dies")
	cmd.Flags().StringVar(&f.serverKeysFile, "server-keys-file", "", "for a configuration without an auth section: require server keys, those of this file (the auth.server_keys_file format, re-read when it changes)")
	cmd.Flags().StringVar(&f.tracing.Endpoint, "otlp-endpoint", "", "send OpenTelemetry traces to this OTLP/HTTP collector (http://collector:4318); off when empty")
	cmd.Flags().Float64Var(&f.tracing.Ratio, "trace-sample-ratio", 1, "with --otlp-endpoint: the share of new traces kept, from 0 to 1 (a request whose caller sampled its trace is always kept)")
	cmd.Flags().BoolVar(&f.initKeys, "init-keys", false, "make --server-keys-file with one new admin key when it does not exist, and print the key once")
	addNetFlags(cmd, &f.net)
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
	stdout := f.stdout
	if stdout == nil {
		stdout = os.Stdout
	}
	if err := keysFromFlags(cfg, f, stdout); err != nil {
		return err
	}
	settings, err := serverSettings(cfg.Server, f.net)
	if err != nil {
		return err
	}
	// Who may do what (auth.go): refused beyond loopback without auth.
	auth, stopAuth, err := setupAuth(cfg, f.config, f.addr, log)
	if err != nil {
		return err
	}
	defer stopAuth()
	if err := checkClusterFlags(f); err != nil {
		return err
	}
	f.tracing.Version = version
	tp, stopTracing, err := tracing.Provider(f.tracing)
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := stopTracing(sctx); err != nil {
			log.Warn("sending the last traces failed", "err", err)
		}
	}()
	if f.tracing.Endpoint != "" {
		log.Info("tracing on", "otlp_endpoint", f.tracing.Endpoint, "sample_ratio", f.tracing.Ratio)
	}
	store, where, err := openStore(ctx, f)
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
	ratings, err := ratingService(cfg, store, log, reg, now)
	if err != nil {
		return err
	}
	var mm *ticketsvc.Service
	encounters, err := encounterService(cfg, store, func(ctx context.Context, q string, after int64, send func(cupid.MatchEvent) error) error {
		return mm.Handoff().WatchMatches(ctx, q, after, send)
	}, &mm, ratings, log, reg, now)
	if err != nil {
		return err
	}
	mm, err = ticketsvc.New(ticketsvc.Options{
		Store: store, Documents: store, Queues: queues(cfg), Logger: log, Registry: reg, Now: now, Shared: sharedOf(store),
		Seed: uint64(time.Now().UnixNano()), Intake: intakeSteps(ratingIntake(ratings), encounters), Tracer: tp.Tracer("cupid"),
	})
	if err != nil {
		return err
	}
	pairings, err := pairingsvc.New(pairingsvc.Options{Docs: store, Limits: pairingLimits(cfg), Logger: log, Registry: reg, Now: now, Encounters: encounters})
	if err != nil {
		return err
	}
	lobbies, err := lobbyService(store, mm, encounters, log, reg, now)
	if err != nil {
		return err
	}
	opponents, err := opponentsvc.New(opponentsvc.Options{Docs: store, Finders: opponentFinders(cfg), Logger: log, Registry: reg, Now: now,
		History: encounters, HistoryFinders: encounterFinders(cfg)})
	if err != nil {
		return err
	}
	retention, err := retentionService(cfg, store, log, reg, now)
	if err != nil {
		return err
	}
	if f.hooks != nil && f.hooks.retention != nil {
		f.hooks.retention(retention)
	}
	parties, err := partyService(cfg, store, mm, encounters, log, reg, now)
	if err != nil {
		return err
	}
	var ready atomic.Bool
	apiOpts := api.Options{
		Matchmaker: mm, Pairing: pairings, Opponents: opponents, Ratings: ratings, Lobbies: lobbies, Parties: parties, Encounters: encounters,
		Logger: log, Gatherer: reg, Ready: &ready, Now: now,
		Limits: apiLimits(settings), AllowedOrigins: settings.CORS.AllowedOrigins,
		Auth: auth, RateLimits: apiRateLimits(settings, auth != nil, now, log),
	}
	if f.tracing.Endpoint != "" {
		spans, err := otelconnect.NewInterceptor(otelconnect.WithTracerProvider(tp), otelconnect.WithoutMetrics())
		if err != nil {
			return err
		}
		apiOpts.Interceptors = append(apiOpts.Interceptors, spans)
	}
	closeHistory := mountDashboard(&apiOpts, mm, pairings, opponents, store, retention, f, log, now)
	defer closeHistory(context.Background()) // a second close does nothing
	handler := api.Handler(apiOpts)

	ln, tlsConf, err := listen(f.addr, settings, tlsSourceOf(f.net), log)
	if err != nil {
		return err
	}
	fwd := cluster.NewForwarder(handler, log, tlsConf != nil)
	handler = fwd
	if f.pprof {
		mux := http.NewServeMux()
		mux.Handle("/debug/pprof/", auth.ProtectDebug(http.DefaultServeMux))
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
	configureServer(srv, settings, tlsConf)
	source := "built-in demo"
	if f.config != "" {
		source = f.config
	}
	log.Info("configuration loaded", "source", source, "queues", mm.Queues(), "store", where)
	if err := mm.Start(ctx); err != nil {
		ln.Close()
		return err
	}
	defer mm.Close()
	stopCluster, err := startCluster(ctx, f, log, store, mm, pairings, retention, lobbies, parties, encounters, fwd, ln.Addr().String())
	if err != nil {
		ln.Close()
		return err
	}
	defer stopCluster()
	if sharedOf(store) == nil {
		if err := pairings.Start(ctx); err != nil {
			ln.Close()
			return err
		}
		retention.Start(cupid.Fence{})
		if err := lobbies.Start(ctx); err != nil {
			ln.Close()
			return err
		}
		encounters.RunFollowers(ctx, cupid.Fence{})
	}
	defer lobbies.Close()
	go sweepLobbies(ctx, lobbies)
	defer retention.Stop()
	defer pairings.Close()
	if sharedOf(store) == nil {
		if err := parties.Start(ctx); err != nil {
			ln.Close()
			return err
		}
	}
	defer parties.Close()
	defer encounters.StopFollowers()
	if err := opponents.Start(ctx); err != nil {
		ln.Close()
		return err
	}
	defer opponents.Close()
	ready.Store(true)
	if f.hooks != nil && f.hooks.started != nil {
		f.hooks.started(mm)
	}
	if f.hooks != nil && f.hooks.parties != nil {
		f.hooks.parties(parties)
	}
	addr := ln.Addr().String()
	scheme := "http"
	if tlsConf != nil {
		scheme = "https"
	}
	log.Info("listening", "addr", addr, "api", scheme+"://"+addr)
	if listening != nil {
		listening <- addr
	}

	errc := make(chan error, 1)
	go func() { errc <- serveOn(srv, ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	ready.Store(false)
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// Hand the queues to the other nodes first, then end watch streams so
	// Shutdown need not wait for them.
	stopCluster()
	retention.Stop()
	parties.Close()
	encounters.StopFollowers()
	mm.Close()
	closeHistory(sctx)
	pairings.Close()
	lobbies.Close()
	opponents.Close()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// queues turns the configuration's queues into the ticket service's plain
// values.
func queues(cfg *config.Config) []ticketsvc.Queue {
	out := make([]ticketsvc.Queue, len(cfg.Queues))
	for i := range cfg.Queues {
		qc := &cfg.Queues[i]
		out[i] = ticketsvc.Queue{Name: qc.Name, TTL: time.Duration(qc.TicketTTL), Ruleset: qc.RulesetJSON(), Rules: qc.Rules(), MaxKeys: qc.MaxKeys}
		out[i].AssignTimeout, out[i].OnAssignTimeout = queueHandoff(qc)
		out[i].Acceptance = queueAcceptance(qc)
		out[i].LeaverWindow = time.Duration(qc.LeaverWindow)
		out[i].MaxSession = qc.Session()
	}
	return out
}

// setGCPercent applies --gc-percent. A waiting ticket is a few hundred
// bytes of long-lived heap; with Go's default target (100) the heap grows to
// twice what is live before a collection, so a server holding many waiting
// tickets keeps about double their size resident. 50 trades a little CPU
// for a third less memory. GOGC set in the environment is respected unless
// the flag is given explicitly.
func setGCPercent(p int, explicit bool) error {
	if p < -1 || p == 0 {
		return fmt.Errorf("--gc-percent: a positive percentage, or -1 to turn collection off; got %d", p)
	}
	if _, set := os.LookupEnv("GOGC"); set && !explicit {
		return nil
	}
	debug.SetGCPercent(p)
	return nil
}

// store is what the services keep their state in: tickets and documents.
type store interface {
	cupid.Store
	cupid.DocumentStore
}

// openStore opens the store --store names: the embedded SQLite file in
// --data (the default), or a PostgreSQL database by URL. Both bring their
// schema up to date as they open. where says which, without a password.
func openStore(ctx context.Context, f serveFlags) (store, string, error) {
	switch {
	case f.store == "" || f.store == "sqlite":
		path := filepath.Join(f.data, "cupid.db")
		s, err := sqlite.Open(path)
		return s, path, err
	case strings.HasPrefix(f.store, "postgres://") || strings.HasPrefix(f.store, "postgresql://"):
		u, err := url.Parse(f.store)
		if err != nil {
			return nil, "", fmt.Errorf("--store: %w", err)
		}
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		s, err := postgres.Open(ctx, f.store)
		if err != nil {
			return nil, "", fmt.Errorf("--store: %w", err)
		}
		return s, u.Redacted(), nil
	}
	return nil, "", fmt.Errorf("--store: %q is neither sqlite nor a postgres:// URL", f.store)
}
