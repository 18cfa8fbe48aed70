package opponentsvc

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/opponent"
)

// FindOpponent answers "whom should this attacker fight?" from the
// finder's cache: SUCCESS with the best defender, NONE_FOUND, or
// FAKE_OPPONENT when fake opponents are enabled and nothing real fits. It
// does no I/O: the only shared cost is the finder's lock for the few
// microseconds of the search. A malformed query changes nothing; so does
// one whose attacker id or excluded ids start with opponent.FakeIDPrefix,
// which no real player's id does.
func (s *Service) FindOpponent(ctx context.Context, finderName string, q opponent.Query) (opponent.Result, error) {
	fd, err := s.get(finderName)
	if err != nil {
		return opponent.Result{}, err
	}
	if err := checkQueryIDs(&q); err != nil {
		fd.invalidQueries.Add(1)
		return opponent.Result{}, err
	}
	start := time.Now()
	now := s.now()
	res, err := s.query(ctx, fd, q, now) // encounters.go
	fd.querySeconds.Observe(time.Since(start).Seconds())
	if err == nil && res.Reservation != nil {
		// Held in memory already, so no concurrent query gets the same
		// defender; stored before the attacker hears of it.
		if err := s.holdOffer(ctx, fd, res); err != nil {
			return opponent.Result{}, err
		}
	}
	return res, err
}

// checkQueryIDs refuses fake-opponent ids where a query names real
// players: the attacker (fake ids are made from the attacker's, and an
// attacker is a real player) and the exclusions (a fake is never cached,
// so excluding one excludes nothing; it is a mistake worth hearing about).
func checkQueryIDs(q *opponent.Query) error {
	if err := checkRealID("attacker_id", q.AttackerID); err != nil {
		return err
	}
	for i, id := range q.Exclude {
		if strings.HasPrefix(id, opponent.FakeIDPrefix) {
			return cupid.Invalid(fmt.Sprintf("exclude[%d]", i), "%q starts with %q, which is reserved for the ids of fake opponents: they are never cached, so there is nothing to exclude",
				id, opponent.FakeIDPrefix)
		}
	}
	return nil
}

// FinderStats is a finder's state for the API, dashboards and tests.
type FinderStats struct {
	Name string
	opponent.Stats
	// ScanEnabled and StoresPlayers repeat the configuration.
	ScanEnabled   bool
	StoresPlayers bool
	// ScannedRows are rows of the player table taken into the cache;
	// ScanRejected rows that failed validation or decoding; ScanErrors
	// fetches that failed (the scan retries a tick later).
	ScannedRows  uint64
	ScanRejected uint64
	ScanErrors   uint64
	// InvalidUpdates are updates refused before anything was written.
	// (Refused queries are in Stats.InvalidQueries.)
	InvalidUpdates uint64
}

// Stats describes a finder. Without buckets the per-bucket list is left
// out.
func (s *Service) Stats(finderName string, buckets bool) (FinderStats, error) {
	fd, err := s.get(finderName)
	if err != nil {
		return FinderStats{}, err
	}
	fd.mu.Lock()
	st := fd.f.Stats()
	fd.mu.Unlock()
	if !buckets {
		st.PerBucket = nil
	}
	st.InvalidQueries += fd.invalidQueries.Load()
	return FinderStats{
		Name:           fd.name,
		Stats:          st,
		ScanEnabled:    fd.scans,
		StoresPlayers:  fd.table.stores,
		ScannedRows:    fd.scannedRows.Load(),
		ScanRejected:   fd.scanRejected.Load(),
		ScanErrors:     fd.scanErrors.Load(),
		InvalidUpdates: fd.invalidUpdates.Load(),
	}, nil
}

// RebalanceResult says what a rebalance did.
type RebalanceResult struct {
	// Resized is true when a new sizing model was made, applied and
	// stored; false when too few labels were sampled since the last one.
	Resized bool
	Samples float64
	Buckets int
}

// Rebalance resizes the finder's buckets to the players sampled so far
// (the dynamic bucket sizing of Metaplay's async matchmaker) and stores the model, as the
// background goroutine does every sizing.interval. The model is in use even
// if storing it fails; the error says it will not survive a restart.
func (s *Service) Rebalance(ctx context.Context, finderName string) (RebalanceResult, error) {
	fd, err := s.get(finderName)
	if err != nil {
		return RebalanceResult{}, err
	}
	return s.rebalance(ctx, fd)
}

func (s *Service) rebalance(ctx context.Context, fd *finder) (RebalanceResult, error) {
	fd.rebalanceMu.Lock()
	defer fd.rebalanceMu.Unlock()
	fd.mu.Lock()
	m, ok := fd.f.Rebalance(s.now())
	buckets := fd.f.Stats().Buckets
	fd.mu.Unlock()
	res := RebalanceResult{Resized: ok, Samples: m.Samples, Buckets: buckets}
	if !ok || s.docs == nil {
		return res, nil
	}
	body, err := json.Marshal(m)
	if err == nil {
		err = s.docs.PutDocument(ctx, cupid.Fence{}, SizingKind, fd.name, body, s.now())
	}
	if err != nil {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		s.log.Error("opponent finder: sizing model not stored", "finder", fd.name, "err", err)
		return res, cupid.Errorf(cupid.CodeUnavailable, "", "the buckets were resized but the sizing model could not be stored; try again")
	}
	s.log.Info("opponent finder: rebalanced", "finder", fd.name, "samples", m.Samples, "buckets", buckets)
	return res, nil
}
