package main

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

// pairingLease is the lease that gives a node the speed-dating events. One
// node runs them all at a time: an event's rounds, timers and snapshot live
// in one process, and the others hand its calls over.
const pairingLease = "pairing"

// forwardedHeader marks a call one node handed to another, which serves it
// whatever it believes, so that two nodes with different views of the lease
// never pass a call back and forth.
const forwardedHeader = "Cupid-Forwarded-By"

// pairingForwarder sends the speed-dating API (Connect calls and the event
// WebSocket) to the node that runs the events, when that is another node;
// everything else, and everything on a node of its own, goes to next.
type pairingForwarder struct {
	next http.Handler
	log  *slog.Logger
	// set once the node has joined its cluster; nil on a node of its own
	mu    sync.Mutex
	owner func(ctx context.Context) (addr string, local, ok bool)
	node  string
	// h1 carries WebSocket upgrades and HTTP/1.1 calls, h2 the HTTP/2 ones
	// (gRPC needs it), to the other node.
	h1, h2 http.RoundTripper
	scheme string
}

func newPairingForwarder(next http.Handler, log *slog.Logger, useTLS bool) *pairingForwarder {
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
	return &pairingForwarder{next: next, log: log, h1: h1, h2: h2, scheme: scheme}
}

// join makes the forwarder ask owner who runs the events.
func (f *pairingForwarder) join(node string, owner func(ctx context.Context) (addr string, local, ok bool)) {
	f.mu.Lock()
	f.node, f.owner = node, owner
	f.mu.Unlock()
}

func isPairingCall(path string) bool {
	return strings.HasPrefix(path, "/cupid.v1.PairingService/") || strings.HasPrefix(path, "/v1/events/")
}

func (f *pairingForwarder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	owner, node := f.owner, f.node
	f.mu.Unlock()
	if owner == nil || !isPairingCall(r.URL.Path) || r.Header.Get(forwardedHeader) != "" {
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
		w.Write([]byte(`{"code":"unavailable","message":"the speed-dating events are moving to another node; try again in a few seconds"}` + "\n"))
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
			pr.Out.Header.Set(forwardedHeader, node)
		},
		Transport:     tr,
		FlushInterval: -1, // streams and WebSockets pass through as they come
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			f.log.Warn("handing a speed-dating call to the node that runs the events failed", "node", addr, "err", err)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadGateway)
			w.Write([]byte(`{"code":"unavailable","message":"the node that runs the speed-dating events did not answer; try again"}` + "\n"))
		},
	}
	p.ServeHTTP(w, r)
}
