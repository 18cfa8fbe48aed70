package main

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/config"
	"github.com/cupid-match/cupid/service/retentionsvc"
)

// retentionService builds the retention service from the configuration's
// retention section. It runs on one node: here on the embedded store, on
// the holder of cluster.RetentionLease on PostgreSQL.
func retentionService(cfg *config.Config, s store, log *slog.Logger, reg prometheus.Registerer, now func() time.Time) (*retentionsvc.Service, error) {
	p, ok := s.(cupid.Pruner)
	if !ok {
		return nil, fmt.Errorf("the store %T cannot remove old data", s)
	}
	r := cfg.Retention
	var export *retentionsvc.Export
	if r.Export.Dir != "" {
		// Only the node that removes writes: on a cluster, the holder of
		// the retention lease.
		export = &retentionsvc.Export{Dir: r.Export.Dir, Kinds: r.Export.Kinds}
	}
	return retentionsvc.New(retentionsvc.Options{
		Store: p, Keep: r.Rules(), Batch: r.Batch, Pause: time.Duration(r.Pause), Interval: time.Duration(r.Interval),
		Export: export, Now: now, Logger: log, Registry: reg,
	})
}
