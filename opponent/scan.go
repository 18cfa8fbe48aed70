package opponent

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/cupid-match/cupid"
)

// scanState is where the periodic scan of the player table stands. The
// finder does no I/O: it plans each fetch, the server runs it against its
// store and hands the rows back with ApplyScan.
type scanState struct {
	cursor string
	next   time.Time // when the next fetch is due; zero means now
}

// ScanPlan is the next fetch of the player table the server should run.
type ScanPlan struct {
	// Due is true when the fetch should run now; otherwise At says when.
	Due bool      `json:"due"`
	At  time.Time `json:"at"`
	// Cursor is where to continue in the table, as the store returned it
	// last time; empty means from the beginning.
	Cursor string `json:"cursor,omitempty"`
	// Limit is how many players to fetch: Scan.MaxFetch when the cache is
	// empty, falling linearly to Scan.MinFetch when it is full, so an empty
	// cache fills fast and a full one is only refreshed.
	Limit int `json:"limit"`
}

// ScanPlan tells the server whether and what to fetch at now. With the scan
// disabled it is never due.
func (f *Finder) ScanPlan(now time.Time) ScanPlan {
	sc := &f.s.cfg.Scan
	if !sc.Enabled {
		return ScanPlan{}
	}
	fill := float64(f.entries) / float64(f.s.cfg.PlayerCacheSize)
	limit := sc.MaxFetch - int(math.Round(float64(sc.MaxFetch-sc.MinFetch)*fill))
	return ScanPlan{
		Due:    !now.Before(f.scan.next),
		At:     f.scan.next,
		Cursor: f.scan.cursor,
		Limit:  max(sc.MinFetch, min(limit, sc.MaxFetch)),
	}
}

// ScanReport says what a scanned batch did.
type ScanReport struct {
	UpdateResult
	Applied  int `json:"applied"`  // models taken in
	Rejected int `json:"rejected"` // models that failed validation, skipped
	// Errors are the first few rejections, each naming its row
	// ("batch[3].entries[0].mmr").
	Errors []error `json:"-"`
	// Wrapped is true when the batch ended a pass over the table.
	Wrapped bool `json:"wrapped"`
}

const maxScanErrors = 10

// ApplyScan takes in one fetched batch (one model per player row, as the
// seed's TryCreateModel(s) would make them) and the cursor the store returned
// after it; an empty cursor means the table was read to the end and the next
// pass starts over. Rows go through the same path as Update, thresholds
// included. Unlike Update, one malformed row does not stop the batch: the
// scan must move past a bad row rather than stall on it, so bad rows are
// skipped and reported. The next fetch is due one Scan.Tick after now.
func (f *Finder) ApplyScan(batch []Model, nextCursor string, now time.Time) (ScanReport, error) {
	if !f.s.cfg.Scan.Enabled {
		return ScanReport{}, invalid("scan.enabled", "the scan is disabled for this finder; use Update")
	}
	var rep ScanReport
	for i := range batch {
		r, err := f.Update(batch[i], now)
		if err != nil {
			rep.Rejected++
			if len(rep.Errors) < maxScanErrors {
				rep.Errors = append(rep.Errors, prefixField(fmt.Sprintf("batch[%d]", i), err))
			}
			continue
		}
		rep.Applied++
		rep.add(r)
	}
	f.scan.cursor = nextCursor
	if nextCursor == "" {
		rep.Wrapped = true
		f.stats.ScanPasses++
	}
	f.scan.next = now.Add(time.Duration(f.s.cfg.Scan.Tick))
	f.stats.ScanBatches++
	return rep, nil
}

// prefixField puts a row's position in front of an error's field.
func prefixField(prefix string, err error) error {
	var e *cupid.Error
	if errors.As(err, &e) {
		c := *e
		if c.Field == "" {
			c.Field = prefix
		} else {
			c.Field = prefix + "." + c.Field
		}
		return &c
	}
	return fmt.Errorf("%s: %w", prefix, err)
}
