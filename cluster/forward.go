package cluster

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"
)

// PairingLease is the lease that gives a node the speed-dating events. One
// node runs them all at a time: an event's rounds, timers and snapshot live
// in one process, and the others hand its calls over.
const PairingLease = "pairing"

// ForwardedHeader marks a call one node handed to another, which serves it
// whatever it believes, so that two nodes with different views of the lease
// never pass a call back and forth.
const ForwardedHeader = "Cupid-Forwarded-By"

// Locate says where the speed-dating events run: on this node (local), at
// another node's address, or nowhere for the moment (!ok).
type Locate func(ctx context.Context) (addr string, local, ok bool)

// Forwarder sends the speed-dating API (Connect calls and the event
// WebSocket) to the node that runs the events, when that is another node;
// everything else, and everything on a node of its own, goes to next. It
// wraps the API handler before the node has joined (the server listens
// first), so it passes everything through until Join tells it the owner.
type Forwarder struct {
	next http.Handler
	log  *slog.Logger
	// set once the node has joined its cluster; nil on a node of its own
	mu    sync.Mutex
	owner Locate
	node  string
	// lobbies locates the lobbies (LobbiesLease) when the node runs them.
	lobbies Locate
	// routes are other singletons' paths and where each runs (route).
	routes []route
	// h1 carries WebSocket upgrades and HTTP/1.1 calls, h2 the HTTP/2 ones
	// (gRPC needs it), to the other node.
	h1, h2 http.RoundTripper
	scheme string
}

// NewForwarder wraps next. useTLS says how the nodes reach each other:
// HTTPS when they serve it, else HTTP with unencrypted HTTP/2 for gRPC.
func NewForwarder(next http.Handler, log *slog.Logger, useTLS bool) *Forwarder {
	if log == nil {
		log = slog.Default()
	}
	dial := (&net.Dialer{Timeout: 5 * time.Second}).DialContext
	h1 := &http.Transport{DialContext: dial, MaxIdleConnsPerHost: 32, TLSClientConfig: &tls.Config{}}
	h2 := &http.Transport{DialContext: dial, MaxIdleConnsPerHost: 32, TLSClientConfig: &tls.Config{}, ForceAttemptHTTP2: true}
	scheme := "https"
	if !useTLS {
		p := new(http.Protocols)
		p.SetUnencryptedHTTP2(true)
		h2.Protocols = p
		scheme = "http"
	}
	return &Forwarder{next: next, log: log, h1: h1, h2: h2, scheme: scheme}
}

// join makes the forwarder ask owner who runs the events, and sign what it
// hands over with the node's id.
func (f *Forwarder) join(node string, owner Locate) {
	f.mu.Lock()
	f.node, f.owner = node, owner
	f.mu.Unlock()
}

// joinLobbies makes the forwarder hand the lobby calls to the node that
// runs the lobbies too.
func (f *Forwarder) joinLobbies(owner Locate) {
	f.mu.Lock()
	f.lobbies = owner
	f.mu.Unlock()
}

// route is a singleton's API paths, where it runs and what it is called
// in an error ("parties").
type route struct {
	prefixes []string
	owner    Locate
	what     string
}

// route makes the forwarder hand the calls whose path starts with one of
// prefixes to where owner says they run.
func (f *Forwarder) route(what string, prefixes []string, owner Locate) {
	f.mu.Lock()
	f.routes = append(f.routes, route{prefixes: prefixes, owner: owner, what: what})
	f.mu.Unlock()
}

func isLobbyCall(path string) bool {
	return strings.HasPrefix(path, "/cupid.v1.LobbyService/")
}

// isPairingCall is a call the events' node must serve: the API's, and the
// dashboard's speed-dating actions (start, end, pause a round).
func isPairingCall(path string) bool {
	return strings.HasPrefix(path, "/cupid.v1.PairingService/") || strings.HasPrefix(path, "/v1/events/") ||
		path == "/dashboard/api/actions/event"
}

func (f *Forwarder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	owner, node := f.owner, f.node
	what := "speed-dating events"
	if isLobbyCall(r.URL.Path) {
		owner, what = f.lobbies, "lobbies"
	} else if !isPairingCall(r.URL.Path) {
		owner = nil
		for _, rt := range f.routes {
			for _, p := range rt.prefixes {
				if strings.HasPrefix(r.URL.Path, p) {
					owner, what = rt.owner, rt.what
				}
			}
		}
	}
	f.mu.Unlock()
	if owner == nil || r.Header.Get(ForwardedHeader) != "" {
		f.next.ServeHTTP(w, r)
		return
	}
	addr, local, ok := owner(r.Context())
	switch {
	case local:
		f.next.ServeHTTP(w, r)
		return
	case !ok:
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"code":"unavailable","message":"the ` + what + ` are moving to another node; try again in a few seconds"}` + "\n"))
		return
	}
	target := &url.URL{Scheme: f.scheme, Host: addr}
	tr := f.h1
	if r.ProtoMajor == 2 {
		tr = f.h2
	}
	p := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Host = pr.In.Host
			pr.Out.Header.Set(ForwardedHeader, node)
		},
		Transport:     tr,
		FlushInterval: -1, // streams and WebSockets pass through as they come
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			f.log.Warn("handing a call to the node that runs the "+what+" failed", "node", addr, "err", err)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadGateway)
			w.Write([]byte(`{"code":"unavailable","message":"the node that runs the ` + what + ` did not answer; try again"}` + "\n"))
		},
	}
	p.ServeHTTP(w, r)
}
