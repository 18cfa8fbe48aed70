// Package dashboard serves Cupid's operator dashboard under /dashboard/: a
// few pages of plain JavaScript and SVG embedded in the binary (no Node is
// needed to build it), and the JSON endpoints they read under
// /dashboard/api/.
//
// The pages themselves hold nothing secret and are served to anyone; every
// data endpoint goes through Options.Authorize, which the API wires to "a
// server key with the admin scope" when auth is on. The browser sends the
// key in the Authorization header of fetch() requests, the live streams
// included: a stream is a server-sent event stream read with fetch(), not
// EventSource or a WebSocket, so that the key never has to travel in a URL
// (where proxies and access logs keep it).
//
// Live pages hold one stream each. The server builds a snapshot of what the
// page shows at most once per Options.Interval, only while the stream is
// open, and sends it only when it changed; the number of open streams is
// bounded.
package dashboard

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
	"github.com/cupid-match/cupid/service/encountersvc"
	"github.com/cupid-match/cupid/service/lobbysvc"
	"github.com/cupid-match/cupid/service/opponentsvc"
	"github.com/cupid-match/cupid/service/pairingsvc"
	"github.com/cupid-match/cupid/service/partysvc"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// Prefix is where the dashboard is mounted; APIPrefix its data endpoints.
const (
	Prefix    = "/dashboard/"
	APIPrefix = "/dashboard/api/"
)

//go:embed static
var static embed.FS

// Options configure the data endpoints.
type Options struct {
	Tickets *ticketsvc.Service
	// Pairing and Opponents are optional: without them their pages say
	// the server runs none.
	Pairing   *pairingsvc.Service
	Opponents *opponentsvc.Service
	// Lobbies is optional too (lobbies.go).
	Lobbies *lobbysvc.Service
	// Parties is optional too (parties.go).
	Parties *partysvc.Service
	// Encounters is optional too: the reports page (reports.go).
	Encounters *encountersvc.Service
	// Authorize decides whether a request may use the dashboard's data; nil
	// lets every request through (a server without auth).
	Authorize func(*http.Request) error
	// Docs, when set, keeps the action log (and the statistics' history)
	// across restarts, shared by a cluster's nodes.
	Docs cupid.DocumentStore
	// Who names the caller of a request for the action log ("server key
	// ops"); nil names nobody in particular.
	Who func(*http.Request) string
	// History, when set, holds each queue's statistics per minute, read by
	// the queue pages' longer ranges.
	History *History
	// Cluster, when set, is the nodes and leases of a cluster for the
	// nodes page; nil on a single node.
	Cluster Cluster
	// Retention, when set, is the retention service for its section.
	Retention Retention
	// AuthOn tells the pages that a key is needed, so they ask for one.
	AuthOn bool
	Logger *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Interval is the shortest time between two snapshots of a stream;
	// DefaultInterval when zero.
	Interval time.Duration
	// MaxStreams bounds the streams open at once; DefaultMaxStreams when
	// zero. One more is refused with resource_exhausted.
	MaxStreams int
}

// DefaultInterval is how often a live page may be updated.
const DefaultInterval = time.Second

// DefaultMaxStreams bounds the open live streams of the whole server: a
// dashboard is for a few operators.
const DefaultMaxStreams = 64

// maxBody bounds a request body: a ruleset, or a scenario to try.
const maxBody = 1 << 20

// Assets serves the pages: /dashboard/ and the files under it. It needs no
// credential (the pages ask for the key and send it with each data call).
func Assets() http.Handler {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded tree is part of the binary
	}
	files := http.StripPrefix(Prefix, http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeError(w, cupid.Errorf(cupid.CodeInvalid, "", "the dashboard's pages are read with GET"), http.StatusMethodNotAllowed)
			return
		}
		if r.URL.Path == "/dashboard" {
			http.Redirect(w, r, Prefix, http.StatusMovedPermanently)
			return
		}
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
		w.Header().Set("Referrer-Policy", "no-referrer")
		files.ServeHTTP(w, r)
	})
}

// IsAsset reports whether a request is for the pages rather than the data.
func IsAsset(path string) bool {
	return (path == "/dashboard" || strings.HasPrefix(path, Prefix)) && !strings.HasPrefix(path, APIPrefix)
}

// server is the data endpoints.
type server struct {
	o       Options
	streams atomic.Int64
	// tries holds a token per scenario running: a try costs up to seconds
	// of CPU, so only maxTries run at once.
	tries chan struct{}
	// actions is the log of operators' actions.
	actions *actionLog
	// retainedVal is the store's figures per kind, read at retainedAt.
	retainedMu  sync.Mutex
	retainedVal []cupid.Retained
	retainedAt  time.Time
}

// New returns the data endpoints' handler, to be mounted at APIPrefix.
func New(o Options) http.Handler {
	h, _ := newServer(o)
	return h
}

func newServer(o Options) (http.Handler, *server) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.MaxStreams <= 0 {
		o.MaxStreams = DefaultMaxStreams
	}
	s := &server{o: o, tries: make(chan struct{}, maxTries), actions: newActionLog(context.Background(), o.Docs, o.Logger)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+APIPrefix+"overview", s.overview)
	mux.HandleFunc("GET "+APIPrefix+"stream", s.stream)
	mux.HandleFunc("GET "+APIPrefix+"tickets", s.tickets)
	mux.HandleFunc("GET "+APIPrefix+"rulesets/{queue}", s.ruleset)
	mux.HandleFunc("PUT "+APIPrefix+"rulesets/{queue}", s.putRuleset)
	mux.HandleFunc("POST "+APIPrefix+"check", s.check)
	mux.HandleFunc("POST "+APIPrefix+"try", s.try)
	mux.HandleFunc("POST "+APIPrefix+"import", s.importRuleset)
	mux.HandleFunc("GET "+APIPrefix+"actions", s.actionList)
	mux.HandleFunc("POST "+APIPrefix+"actions/cancel", s.cancel)
	mux.HandleFunc("POST "+APIPrefix+"actions/release", s.release)
	mux.HandleFunc("POST "+APIPrefix+"actions/event", s.eventAction)
	mux.HandleFunc("POST "+APIPrefix+"actions/rebalance", s.rebalance)
	mux.HandleFunc("GET "+APIPrefix+"history", s.history)
	mux.HandleFunc("GET "+APIPrefix+"nodes", s.nodes)
	mux.HandleFunc("GET "+APIPrefix+"retention", s.retention)
	mux.HandleFunc("GET "+APIPrefix+"rollouts", s.rollouts)
	mux.HandleFunc("GET "+APIPrefix+"reports", s.reports)
	mux.HandleFunc("POST "+APIPrefix+"actions/canary", s.canaryAction)
	mux.HandleFunc(APIPrefix, func(w http.ResponseWriter, r *http.Request) {
		writeError(w, cupid.NotFound("", "no dashboard endpoint %s %s", r.Method, r.URL.Path), 0)
	})
	// Statistics count arrivals from their first reading on: read them
	// now, so they count from the server's start.
	if o.Tickets != nil {
		_, _ = o.Tickets.Statistics().QueueStatistics(context.Background(), "")
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if o.Authorize != nil {
			if err := o.Authorize(r); err != nil {
				writeError(w, err, 0)
				return
			}
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		mux.ServeHTTP(w, r)
	}), s
}

// writeJSON answers with v as JSON.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// apiError is the shape of every error answer: the code, the field at
// fault when there is one, and the message.
type apiError struct {
	Code    string `json:"code"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// wireCodes name the codes as the API's other plain-HTTP errors do (the
// names of Connect's codes), with their HTTP status.
var wireCodes = map[cupid.Code]struct {
	name   string
	status int
}{
	cupid.CodeInvalid:       {"invalid_argument", http.StatusBadRequest},
	cupid.CodeNotFound:      {"not_found", http.StatusNotFound},
	cupid.CodeConflict:      {"failed_precondition", http.StatusConflict},
	cupid.CodeAlreadyExists: {"already_exists", http.StatusConflict},
	cupid.CodeExhausted:     {"resource_exhausted", http.StatusTooManyRequests},
	cupid.CodeUnavailable:   {"unavailable", http.StatusServiceUnavailable},
	cupid.CodeTooLarge:      {"resource_exhausted", http.StatusRequestEntityTooLarge},
	cupid.CodeUnauth:        {"unauthenticated", http.StatusUnauthorized},
	cupid.CodeDenied:        {"permission_denied", http.StatusForbidden},
}

// wire is an error as sent: its code's name, the field and the message
// (which names the field first, as the API's errors do).
func wire(e *cupid.Error) (apiError, int) {
	c, ok := wireCodes[e.Code]
	if !ok {
		c.name, c.status = "internal", http.StatusInternalServerError
	}
	return apiError{Code: c.name, Field: e.Field, Message: e.Error()}, c.status
}

// toError makes any error one to show: domain errors as they are, a body
// over the limit as too_large, anything else internal (its words logged,
// not shown).
func toError(err error) *cupid.Error {
	var e *cupid.Error
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &e):
		return e
	case errors.As(err, &tooBig):
		return cupid.Errorf(cupid.CodeTooLarge, "", "the request body is over %d bytes", tooBig.Limit)
	}
	return cupid.Errorf(cupid.CodeInternal, "", "internal error")
}

// writeError answers with an error; status 0 takes the code's.
func writeError(w http.ResponseWriter, err error, status int) {
	out, st := wire(toError(err))
	if status == 0 {
		status = st
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(out)
}

// writeProblems refuses a ruleset with its problems, each at its line.
func writeProblems(w http.ResponseWriter, ps ruleset.Problems, format string) {
	out, status := wire(cupid.Invalid("ruleset", format, count(len(ps), "problem")))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"code": out.Code, "field": out.Field, "message": out.Message, "problems": problems(ps)})
}

// fail logs what is not the caller's fault and answers.
func (s *server) fail(w http.ResponseWriter, r *http.Request, err error) {
	if toError(err).Code == cupid.CodeInternal {
		s.o.Logger.Error("dashboard request failed", "path", r.URL.Path, "err", err)
	}
	writeError(w, err, 0)
}

// overview tells the pages what the server runs.
func (s *server) overview(w http.ResponseWriter, r *http.Request) {
	out := map[string]any{
		"queues":   s.o.Tickets.Queues(),
		"pairing":  s.o.Pairing != nil,
		"lobbies":  s.o.Lobbies != nil,
		"parties":  s.o.Parties != nil,
		"reports":  s.o.Encounters != nil,
		"finders":  []string{},
		"auth":     s.o.AuthOn,
		"interval": s.o.Interval.Seconds(),
	}
	if s.o.Opponents != nil {
		out["finders"] = s.o.Opponents.Finders()
	}
	writeJSON(w, out)
}
