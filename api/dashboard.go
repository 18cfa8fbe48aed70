package api

import (
	"net/http"

	"github.com/cupid-match/cupid/dashboard"
)

// The operator dashboard (package dashboard) is mounted in two parts. Its
// data endpoints (/dashboard/api/…) sit in the mux behind protect like
// every other call, and need a server key with the admin scope when auth
// is on. Its pages (/dashboard/ and the files under it) are served in front
// of protect: they hold nothing secret, and a browser that navigates to a
// page cannot send a key; the page asks for it and sends it with each data
// call.

// mountDashboard adds the dashboard's data endpoints to mux.
func mountDashboard(mux *http.ServeMux, o Options, s *server) *http.ServeMux {
	d := dashboard.Options{
		Tickets: o.Matchmaker, Pairing: o.Pairing, Opponents: o.Opponents,
		Logger: s.log, Now: s.now, AuthOn: o.Auth != nil,
	}
	if o.Auth != nil {
		d.Authorize = dashboardAdmin
	}
	mux.Handle(dashboard.APIPrefix, dashboard.New(d))
	return mux
}

// dashboardAdmin lets through the callers protect authenticated with a
// server key of the admin scope.
func dashboardAdmin(r *http.Request) error {
	c := CallerFrom(r.Context())
	if c == nil {
		return errNoCredential
	}
	if c.Key == nil || !c.Key.has(ScopeAdmin) {
		return denied("the dashboard needs a server key with the admin scope; %s has not", c)
	}
	return nil
}

// dashboardPages serves the dashboard's pages before h, which is the rest.
func dashboardPages(h http.Handler) http.Handler {
	pages := dashboard.Assets()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if dashboard.IsAsset(r.URL.Path) {
			pages.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}
