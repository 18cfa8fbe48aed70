package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/google/uuid"

	"github.com/cupid-match/cupid/cluster"
	"github.com/cupid-match/cupid/postgres"
	"github.com/cupid-match/cupid/service/encountersvc"
	"github.com/cupid-match/cupid/service/lobbysvc"
	"github.com/cupid-match/cupid/service/pairingsvc"
	"github.com/cupid-match/cupid/service/partysvc"
	"github.com/cupid-match/cupid/service/retentionsvc"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// defaultLeaseTTL is how long a node's hold on its queues lasts without
// renewal: the longest its queues wait for another node after it dies.
const defaultLeaseTTL = 5 * time.Second

// checkClusterFlags refuses the cluster flags without a shared store, where
// they would mean nothing.
func checkClusterFlags(f serveFlags) error {
	if _, pg := sharedStore(f.store); pg {
		if f.leaseTTL != 0 && f.leaseTTL < 500*time.Millisecond {
			return fmt.Errorf("--lease-ttl: at least 500ms (a node renews every quarter of it), got %s", f.leaseTTL)
		}
		return nil
	}
	if f.nodeID != "" {
		return fmt.Errorf("--node-id: only with a postgres:// --store, where several nodes share one database")
	}
	if f.advertise != "" {
		return fmt.Errorf("--advertise: only with a postgres:// --store, where several nodes share one database")
	}
	if f.leaseTTL != 0 && f.leaseTTL != defaultLeaseTTL {
		return fmt.Errorf("--lease-ttl: only with a postgres:// --store, where several nodes share one database")
	}
	return nil
}

// sharedStore reports whether --store names a database several nodes can
// share.
func sharedStore(s string) (string, bool) {
	for _, p := range []string{"postgres://", "postgresql://"} {
		if len(s) >= len(p) && s[:len(p)] == p {
			return s, true
		}
	}
	return "", false
}

// sharedOf returns the ticket service's view of a shared store, nil for a
// store of the node's own.
func sharedOf(s store) ticketsvc.SharedStore {
	if pg, ok := s.(*postgres.Store); ok {
		return pg
	}
	return nil
}

// startCluster makes this process a node of the cluster on a PostgreSQL
// store (package cluster does the work): its name, the address the other
// nodes reach it at and the lease time come from the flags. The returned
// stop hands the queues back and may be called more than once. On another
// store it does nothing.
func startCluster(ctx context.Context, f serveFlags, log *slog.Logger, s store, mm *ticketsvc.Service, pairings *pairingsvc.Service, retention *retentionsvc.Service, lobbies *lobbysvc.Service, parties *partysvc.Service, encounters *encountersvc.Service, fwd *cluster.Forwarder, addr string) (stop func(), err error) {
	pg, ok := s.(*postgres.Store)
	if !ok {
		return func() {}, nil
	}
	if f.advertise != "" {
		addr = f.advertise
	}
	id := f.nodeID
	if id == "" {
		host, _ := os.Hostname()
		id = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), uuid.NewString()[:8])
	}
	ttl := f.leaseTTL
	if ttl == 0 {
		ttl = defaultLeaseTTL
	}
	return cluster.Join(ctx, cluster.JoinOptions{ID: id, Addr: addr, TTL: ttl, Logger: log, Forwarder: fwd,
		Singletons: map[string]cluster.Singleton{cluster.RetentionLease: retention, cluster.LobbiesLease: lobbySingleton(lobbies, log), partysvc.Lease: partiesLease{parties, log},
			encounterLease: encounterSingleton(encounters)},
		Routes: map[string][]string{
			partysvc.Lease: {"/cupid.v1.PartyService/", "/v1/parties/"},
			// A rematch's answers and a player's reports are read,
			// decided and written under one lock: on the one node that
			// follows the encounters, so two nodes never answer the same
			// rematch (or count the same reports) side by side.
			encounterLease: encounterSerialised,
		}}, pg, mm, pairings)
}
