// Package api is Cupid's transport: Connect handlers (gRPC, gRPC-Web and
// JSON over HTTP on one port), WebSocket event streams for game clients,
// health and metrics endpoints, and the mapping of domain errors to
// protocol codes.
package api

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
	"github.com/cupid-match/cupid/service/encountersvc"
	"github.com/cupid-match/cupid/service/lobbysvc"
	"github.com/cupid-match/cupid/service/opponentsvc"
	"github.com/cupid-match/cupid/service/pairingsvc"
	"github.com/cupid-match/cupid/service/partysvc"
	"github.com/cupid-match/cupid/service/ratingsvc"
	"github.com/cupid-match/cupid/service/ticketsvc"
	"github.com/cupid-match/cupid/service/ticketsvc/canary"
	"github.com/cupid-match/cupid/service/ticketsvc/handoff"
	"github.com/cupid-match/cupid/service/ticketsvc/replace"
)

// MaxRequestBytes bounds every request body. A ticket of 100 players with
// 64 attributes each stays far below it.
const MaxRequestBytes = 1 << 20

// Options configure the HTTP handler.
type Options struct {
	// Interceptors run first on every procedure (the wiring's tracing).
	Interceptors []connect.Interceptor
	Matchmaker   *ticketsvc.Service
	Logger       *slog.Logger
	// Gatherer serves /metrics; none when nil.
	Gatherer prometheus.Gatherer
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Ready tells /readyz whether the server takes traffic.
	Ready *atomic.Bool
	// Pairing serves cupid.v1.PairingService when set.
	Pairing *pairingsvc.Service
	// Opponents serves cupid.v1.OpponentService when set.
	Opponents *opponentsvc.Service
	// Ratings serves cupid.v1.RatingService when set.
	Ratings *ratingsvc.Service
	// Lobbies serves cupid.v1.LobbyService when set.
	Lobbies *lobbysvc.Service
	// Parties serves cupid.v1.PartyService when set.
	Parties *partysvc.Service
	// Encounters serves cupid.v1.EncounterService when set.
	Encounters *encountersvc.Service
	// AllowedOrigins lists the browser origins ("https://game.example.com",
	// or "*" for any) allowed to call the Connect procedures (CORS) and to
	// open WebSockets; pages of the server's own origin always may, and
	// clients that send no Origin (not browsers) are not concerned.
	AllowedOrigins []string
	// Limits bound request time and size and the open watchers (see
	// limits.go); zero fields take DefaultLimits.
	Limits Limits
	// Auth authenticates callers and authorizes their calls (auth.go,
	// permissions.go); nil serves everyone everything.
	Auth *Auth
	// RateLimits give each caller a token bucket (ratelimit.go); the zero
	// value limits nobody.
	RateLimits RateLimits
	// Mounts are the wiring's handlers behind authentication (the
	// dashboard's data endpoints), Pages its pages before it (mounts.go).
	Mounts []Mount
	Pages  Pages
}

type server struct {
	mm       *ticketsvc.Service
	handoff  *handoff.Service // mm's hand-off of committed matches
	rulesets *replace.Service // mm's run-time ruleset replacement
	rollouts *canary.Service  // mm's shadows and canaries
	log      *slog.Logger
	now      func() time.Time
	origins  origins
	limits   Limits
	watchers *watchLimiter
}

// Handler returns the server's HTTP handler.
func Handler(o Options) http.Handler {
	s := &server{mm: o.Matchmaker, log: o.Logger, now: o.Now, origins: newOrigins(o.AllowedOrigins)}
	if o.Matchmaker != nil {
		s.handoff, s.rulesets, s.rollouts = o.Matchmaker.Handoff(), o.Matchmaker.Rulesets(), o.Matchmaker.Rollouts()
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.limits = o.Limits.orDefault()
	s.watchers = newWatchLimiter(s.limits)
	opts := []connect.HandlerOption{
		connect.WithReadMaxBytes(s.limits.MaxRequestBytes),
		// Compressing the small messages of this API costs more CPU than
		// it saves bandwidth; large lists still get compressed.
		connect.WithCompressMinBytes(8 << 10),
		connect.WithRecover(func(_ context.Context, spec connect.Spec, _ http.Header, r any) error {
			s.log.Error("panic in handler", "procedure", spec.Procedure, "panic", r)
			return connect.NewError(connect.CodeInternal, errors.New("internal error"))
		}),
	}
	if len(o.Interceptors) > 0 {
		opts = append(opts, connect.WithInterceptors(o.Interceptors...))
	}
	mux := http.NewServeMux()
	// Unknown fields and enum names in JSON are refused, naming them.
	opts = append(opts, jsonCodecs()...)
	// Rate limits, per caller, before authorization and the handler.
	limiter := newRateLimiter(o.RateLimits, o.Auth != nil)
	opts = append(opts, limiter.handlerOptions()...)
	// Who may do what: each call is authorized once its request is read.
	opts = append(opts, o.Auth.handlerOptions(s.mm.TicketPlayers, s.log)...)
	mux.Handle(cupidv1connect.NewTicketServiceHandler(handoffTickets{&tickets{mm: s.mm, log: s.log, now: s.now, watchers: s.watchers}}, opts...))
	mux.Handle(cupidv1connect.NewMatchServiceHandler(&matches{handoff: s.handoff, log: s.log, watchers: s.watchers}, opts...))
	mux.Handle(cupidv1connect.NewRulesetServiceHandler(&rulesets{rs: s.rulesets, log: s.log}, opts...))
	mux.HandleFunc("GET /v1/tickets/{id}/ws", s.watchSocket)
	mux.HandleFunc("GET /v1/queues/{queue}/matches/ws", s.matchSocket)
	// services are those served, which reflection lists.
	services := []string{cupidv1connect.TicketServiceName, cupidv1connect.MatchServiceName, cupidv1connect.RulesetServiceName}
	registerRollouts(mux, s.rollouts, s.log, opts) // shadows and canaries, admin only (rollout.go)
	services = append(services, cupidv1connect.RolloutServiceName)
	if o.Pairing != nil {
		registerPairing(mux, o.Pairing, s.log, opts, s.origins)
		services = append(services, cupidv1connect.PairingServiceName)
	}
	if o.Opponents != nil {
		registerOpponent(mux, o.Opponents, s.log, opts)
		services = append(services, cupidv1connect.OpponentServiceName)
	}
	if o.Ratings != nil {
		registerRatings(mux, o.Ratings, s.log, opts)
		services = append(services, cupidv1connect.RatingServiceName)
	}
	if o.Lobbies != nil {
		registerLobbies(mux, o.Lobbies, s.log, opts)
		services = append(services, cupidv1connect.LobbyServiceName)
	}
	if o.Parties != nil {
		registerParties(mux, o.Parties, s.log, opts, s.origins, s.watchers)
		services = append(services, cupidv1connect.PartyServiceName)
	}
	if o.Encounters != nil {
		registerEncounters(mux, o.Encounters, s.log, o.Now, opts)
		services = append(services, cupidv1connect.EncounterServiceName)
	}
	registerReflection(mux, services, opts)
	mux.HandleFunc("GET /openapi.json", serveOpenAPI)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		if o.Ready != nil && !o.Ready.Load() {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		// Ready means able to take tickets: the store must accept writes.
		if err := s.mm.Ready(r.Context()); err != nil {
			http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ready\n"))
	})
	if o.Gatherer != nil {
		mux.Handle("GET /metrics", promhttp.HandlerFor(o.Gatherer, promhttp.HandlerOpts{}))
	}
	return withDeadlines(withCORS(limitBody(servePages(o.Pages, limiter.sockets(o.Auth.protect(mount(mux, o.Mounts), s.mm.TicketPlayers, opts, s.log), o.Auth)), s.limits.MaxRequestBytes), s.origins), s.limits)
}

// limitBody caps request bodies for the non-Connect handlers too.
func limitBody(h http.Handler, max int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, int64(max)+4096)
		h.ServeHTTP(w, r)
	})
}

// httpError answers a plain HTTP request with a JSON error in the shape of
// Connect's: {"code": "...", "message": "..."}.
func httpError(w http.ResponseWriter, err error) {
	code := connect.CodeInternal
	msg := "internal error"
	var e *cupid.Error
	if errors.As(err, &e) {
		code = codeOf(e.Code)
		msg = e.Error()
	}
	status, ok := map[connect.Code]int{
		connect.CodeInvalidArgument:    http.StatusBadRequest,
		connect.CodeNotFound:           http.StatusNotFound,
		connect.CodeFailedPrecondition: http.StatusConflict,
		connect.CodeAlreadyExists:      http.StatusConflict,
		connect.CodeUnavailable:        http.StatusServiceUnavailable,
		connect.CodeResourceExhausted:  http.StatusTooManyRequests,
		connect.CodeUnauthenticated:    http.StatusUnauthorized,
		connect.CodePermissionDenied:   http.StatusForbidden,
		connect.CodeOutOfRange:         http.StatusBadRequest,
		connect.CodeInternal:           http.StatusInternalServerError,
	}[code]
	if !ok {
		status = http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"code": code.String(), "message": msg})
}
