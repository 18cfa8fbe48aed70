package api

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/coder/websocket"

	cupid "github.com/cupid-match/cupid"
)

// origins is the list of browser origins allowed to call the API and open
// WebSockets ("*" for any). A request without an Origin header (a game
// server, curl, a native client) is not a browser's and is not concerned.
type origins struct {
	any bool
	set map[string]bool
}

func newOrigins(list []string) origins {
	o := origins{set: map[string]bool{}}
	for _, s := range list {
		if s == "*" {
			o.any = true
		}
		o.set[strings.ToLower(strings.TrimSuffix(s, "/"))] = true
	}
	return o
}

// allows reports whether a page of origin may call; a page of the server's
// own origin always may.
func (o origins) allows(origin string, r *http.Request) bool {
	if o.any || o.set[strings.ToLower(origin)] {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host)
}

// The headers of the Connect, gRPC-Web and gRPC protocols a browser must be
// allowed to send, and those it must be allowed to read.
const (
	corsAllowMethods  = "POST, GET, OPTIONS"
	corsAllowHeaders  = "Content-Type, Connect-Protocol-Version, Connect-Timeout-Ms, Connect-Accept-Encoding, Connect-Content-Encoding, Grpc-Timeout, X-Grpc-Web, X-User-Agent, Authorization"
	corsExposeHeaders = "Grpc-Status, Grpc-Message, Grpc-Status-Details-Bin, Cupid-Field, Content-Encoding, Connect-Content-Encoding"
	corsMaxAge        = "7200"
)

// withCORS answers browsers' cross-origin requests to the Connect
// procedures (/cupid.v1.…): a preflight OPTIONS from an allowed origin gets
// the methods and protocol headers it asks about, and the call itself gets
// Access-Control-Allow-Origin and the headers it may read. A preflight from
// any other origin is refused with 403; a call from one gets no CORS
// headers, so the browser keeps the answer from the page.
func withCORS(h http.Handler, o origins) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" || !strings.HasPrefix(r.URL.Path, "/cupid.v1.") {
			h.ServeHTTP(w, r)
			return
		}
		w.Header().Add("Vary", "Origin")
		preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
		if !o.allows(origin, r) {
			if preflight {
				http.Error(w, "origin "+origin+" is not allowed (server.cors.allowed_origins)", http.StatusForbidden)
				return
			}
			h.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Access-Control-Allow-Origin", origin)
		if preflight {
			w.Header().Add("Vary", "Access-Control-Request-Method")
			w.Header().Add("Vary", "Access-Control-Request-Headers")
			w.Header().Set("Access-Control-Allow-Methods", corsAllowMethods)
			w.Header().Set("Access-Control-Allow-Headers", corsAllowHeaders)
			w.Header().Set("Access-Control-Max-Age", corsMaxAge)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.Header().Set("Access-Control-Expose-Headers", corsExposeHeaders)
		h.ServeHTTP(w, r)
	})
}

// acceptSocket upgrades to a WebSocket when the page's origin is allowed,
// or answers 403 naming it (a plain HTTP error the client can read).
func acceptSocket(w http.ResponseWriter, r *http.Request, o origins) (*websocket.Conn, context.Context, bool) {
	if origin := r.Header.Get("Origin"); origin != "" && !o.allows(origin, r) {
		httpError(w, cupid.Errorf(cupid.CodeDenied, "", "origin %s is not allowed to open WebSockets (server.cors.allowed_origins)", origin))
		return nil, nil, false
	}
	// The origin is checked above, with the same list as the API's.
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return nil, nil, false // Accept has answered the client
	}
	// Every socket here streams to the client, which only sends pings and
	// closes: small reads, and reading in the background drives the pongs
	// and ends the returned context when the client goes away.
	c.SetReadLimit(maxSocketMessage)
	return c, c.CloseRead(r.Context()), true
}

// maxSocketMessage bounds a client's WebSocket message.
const maxSocketMessage = 4096
