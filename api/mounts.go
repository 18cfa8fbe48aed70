package api

import (
	"net/http"
)

// Handlers the wiring mounts. The API knows no handler beyond its own
// procedures: the operator dashboard (package dashboard) is mounted by
// cmd/cupid in two parts through these options. Its data endpoints sit in
// the mux behind protect like every other call (Options.Mounts), where
// Auth.Admin lets only a server key with the admin scope through when auth
// is on. Its pages are served in front of protect (Options.Pages): they
// hold nothing secret, and a browser that navigates to a page cannot send a
// key; the page asks for it and sends it with each data call.

// Mount is a handler served at Pattern (http.ServeMux's patterns) behind
// authentication, with the request's caller in its context (CallerFrom).
type Mount struct {
	Pattern string
	Handler http.Handler
}

// Pages are served before authentication: every request whose path Match
// accepts goes to Handler, with no credential asked for.
type Pages struct {
	Match   func(path string) bool
	Handler http.Handler
}

// Admin lets through the callers protect authenticated with a server key
// of the admin scope, and everyone on a server without auth (a nil Auth).
// It is the check for admin-only handlers mounted by the wiring.
func (a *Auth) Admin(r *http.Request) error {
	if a == nil {
		return nil
	}
	c := CallerFrom(r.Context())
	if c == nil {
		return errNoCredential
	}
	if c.Key == nil || !c.Key.has(ScopeAdmin) {
		return denied("the dashboard needs a server key with the admin scope; %s has not", c)
	}
	return nil
}

// mount adds the wiring's handlers to mux.
func mount(mux *http.ServeMux, mounts []Mount) *http.ServeMux {
	for _, m := range mounts {
		mux.Handle(m.Pattern, m.Handler)
	}
	return mux
}

// servePages serves the pages before h, which is the rest.
func servePages(p Pages, h http.Handler) http.Handler {
	if p.Handler == nil || p.Match == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p.Match(r.URL.Path) {
			p.Handler.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}
