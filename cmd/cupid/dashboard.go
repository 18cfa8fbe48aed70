package main

import (
	"log/slog"
	"time"

	"github.com/cupid-match/cupid/api"
	"github.com/cupid-match/cupid/dashboard"
	"github.com/cupid-match/cupid/service/opponentsvc"
	"github.com/cupid-match/cupid/service/pairingsvc"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// mountDashboard adds the operator dashboard to the API's options: its
// data endpoints behind authentication, where only admin keys pass when
// auth is on, and its pages in front of it (they hold nothing secret, and a
// browser navigating to a page cannot send a key).
func mountDashboard(o *api.Options, mm *ticketsvc.Service, pairings *pairingsvc.Service, opponents *opponentsvc.Service, log *slog.Logger, now func() time.Time) {
	data := dashboard.New(dashboard.Options{
		Tickets: mm, Pairing: pairings, Opponents: opponents, Lobbies: o.Lobbies, Logger: log, Now: now,
		AuthOn: o.Auth != nil, Authorize: o.Auth.Admin,
	})
	o.Mounts = append(o.Mounts, api.Mount{Pattern: dashboard.APIPrefix, Handler: data})
	o.Pages = api.Pages{Match: dashboard.IsAsset, Handler: dashboard.Assets()}
}
