package opponentsvc

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/cupid-match/cupid/opponent"
)

// run is a finder's background goroutine: it rebalances when the finder
// says it is due and, with the scan on, fetches the next batch of the player
// table when the finder's plan says so. It sleeps until the earlier of the
// two; there is no fixed polling interval.
func (s *Service) run(ctx context.Context, fd *finder) {
	defer s.wg.Done()
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		timer.Reset(s.step(ctx, fd))
	}
}

// step does whatever is due for a finder and returns how long to sleep.
func (s *Service) step(ctx context.Context, fd *finder) time.Duration {
	fd.mu.Lock()
	due := fd.f.RebalanceDue(s.now())
	fd.mu.Unlock()
	if due {
		// Errors are logged inside; the next attempt comes an interval
		// later, as for a rebalance without enough samples.
		s.rebalance(ctx, fd)
	}
	var scanWait time.Duration
	if fd.scans {
		scanWait = s.scanOnce(ctx, fd)
	}
	var lapse time.Time
	if fd.cfg.Opponent.Reservations.Enabled {
		lapse = s.sweep(ctx, fd)
	}
	now := s.now()
	fd.mu.Lock()
	wait := fd.f.RebalanceAt().Sub(now)
	fd.mu.Unlock()
	if fd.scans {
		wait = min(wait, scanWait)
	}
	if !lapse.IsZero() {
		wait = min(wait, lapse.Sub(now))
	}
	return max(wait, 0)
}

// scanOnce runs one fetch of the player table if the finder's plan says it
// is due, and returns how long until the next one. The fetch runs without
// the finder's lock, so queries go on meanwhile; updates made during the
// fetch are noted (fd.touched) and win over the rows fetched for the same
// players, which may be older.
func (s *Service) scanOnce(ctx context.Context, fd *finder) time.Duration {
	tick := time.Duration(fd.f.Config().Scan.Tick)
	now := s.now()
	fd.mu.Lock()
	plan := fd.f.ScanPlan(now)
	if !plan.Due {
		fd.mu.Unlock()
		return plan.At.Sub(now)
	}
	fd.touched = map[string]struct{}{}
	fd.mu.Unlock()

	docs, err := s.docs.Documents(ctx, fd.table.kind, plan.Cursor, plan.Limit)
	if err != nil {
		fd.mu.Lock()
		fd.touched = nil
		fd.mu.Unlock()
		if ctx.Err() == nil {
			fd.scanErrors.Add(1)
			s.log.Warn("opponent finder: scan fetch failed; retrying", "finder", fd.name, "after", tick, "err", err)
		}
		return tick
	}
	batch := make([]opponent.Model, 0, len(docs))
	undecodable, fakeIDs := 0, 0
	for _, d := range docs {
		if strings.HasPrefix(d.ID, opponent.FakeIDPrefix) {
			// Stored before such ids were refused; a fake's id must
			// never be offered as a real player's. RemovePlayer deletes it.
			fakeIDs++
			continue
		}
		var m opponent.Model
		if err := json.Unmarshal(d.Body, &m); err != nil {
			undecodable++
			continue
		}
		m.PlayerID = d.ID // the row's key is the truth
		batch = append(batch, m)
	}
	// A short batch is the end of the table: the next pass starts over.
	next := ""
	if len(docs) > 0 && len(docs) >= plan.Limit {
		next = docs[len(docs)-1].ID
	}

	fd.mu.Lock()
	if len(fd.touched) > 0 {
		kept := batch[:0]
		for _, m := range batch {
			if _, ok := fd.touched[m.PlayerID]; !ok {
				kept = append(kept, m)
			}
		}
		batch = kept
	}
	fd.touched = nil
	rep, err := fd.f.ApplyScan(batch, next, s.now())
	fd.mu.Unlock()
	if err != nil {
		// Only a finder with the scan off refuses a batch, and this one
		// scans; log rather than stall.
		s.log.Error("opponent finder: scan batch refused", "finder", fd.name, "err", err)
		return tick
	}
	fd.scannedRows.Add(uint64(rep.Applied))
	if bad := rep.Rejected + undecodable + fakeIDs; bad > 0 {
		fd.scanRejected.Add(uint64(bad))
		s.log.Warn("opponent finder: player table rows skipped", "finder", fd.name,
			"rejected", rep.Rejected, "undecodable", undecodable, "fake_ids", fakeIDs, "errors", rep.Errors)
	}
	return tick
}
