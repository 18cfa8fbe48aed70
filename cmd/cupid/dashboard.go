package main

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/cupid-match/cupid/api"
	"github.com/cupid-match/cupid/dashboard"
	"github.com/cupid-match/cupid/postgres"
	"github.com/cupid-match/cupid/service/opponentsvc"
	"github.com/cupid-match/cupid/service/pairingsvc"
	"github.com/cupid-match/cupid/service/retentionsvc"
	"github.com/cupid-match/cupid/service/statshistory"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// mountDashboard adds the operator dashboard to the API's options: its
// data endpoints behind authentication, where only admin keys pass when
// auth is on, and its pages in front of it (they hold nothing secret, and a
// browser navigating to a page cannot send a key). It starts the history
// of the queues' statistics in the store; the returned close writes its
// last minute and is called once the pools have stopped.
func mountDashboard(o *api.Options, mm *ticketsvc.Service, pairings *pairingsvc.Service, opponents *opponentsvc.Service,
	s store, retention *retentionsvc.Service, f serveFlags, log *slog.Logger, now func() time.Time) (closeHistory func(context.Context)) {
	history := statshistory.New(statshistory.Options{Source: mm.Statistics(), Docs: s, Node: f.nodeID, Now: now, Logger: log})
	history.Start()
	var nodes dashboard.Cluster
	if pg, ok := s.(*postgres.Store); ok {
		ttl := f.leaseTTL
		if ttl == 0 {
			ttl = defaultLeaseTTL
		}
		nodes = clusterView{pg, ttl}
	}
	data := dashboard.New(dashboard.Options{
		Tickets: mm, Pairing: pairings, Opponents: opponents, Lobbies: o.Lobbies, Parties: o.Parties, Encounters: o.Encounters, Logger: log, Now: now,
		AuthOn: o.Auth != nil, Authorize: o.Auth.Admin,
		Docs: s, Who: caller, History: history, Cluster: nodes, Retention: retention,
	})
	o.Mounts = append(o.Mounts, api.Mount{Pattern: dashboard.APIPrefix, Handler: data})
	o.Pages = api.Pages{Match: dashboard.IsAsset, Handler: dashboard.Assets()}
	return func(ctx context.Context) {
		if err := history.Close(ctx); err != nil {
			log.Warn("statistics history: writing the last minute failed", "err", err)
		}
	}
}

// caller names who makes a dashboard request, for its action log.
func caller(r *http.Request) string {
	if c := api.CallerFrom(r.Context()); c != nil {
		return c.String()
	}
	return "anyone (the server has no auth)"
}

// clusterView reads a cluster's nodes and leases from its PostgreSQL
// database for the dashboard's nodes page.
type clusterView struct {
	pg  *postgres.Store
	ttl time.Duration
}

func (c clusterView) TTL() time.Duration { return c.ttl }

func (c clusterView) Nodes(ctx context.Context) ([]dashboard.NodeInfo, error) {
	ns, err := c.pg.Nodes(ctx, time.Hour)
	if err != nil {
		return nil, err
	}
	out := make([]dashboard.NodeInfo, len(ns))
	for i, n := range ns {
		out[i] = dashboard.NodeInfo{ID: n.ID, Addr: n.Addr, Started: n.Started, Seen: n.Seen}
	}
	return out, nil
}

func (c clusterView) Leases(ctx context.Context) ([]dashboard.LeaseInfo, error) {
	ls, err := c.pg.Leases(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]dashboard.LeaseInfo, len(ls))
	for i, l := range ls {
		out[i] = dashboard.LeaseInfo{Name: l.Name, Owner: l.Owner, Token: l.Token, Expires: l.Expires}
	}
	return out, nil
}
