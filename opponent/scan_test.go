package opponent

import (
	"fmt"
	"math"
	"testing"
	"time"
)

func scanConfig() Config {
	cfg := baseConfig()
	cfg.PlayerCacheSize = 1000
	cfg.BucketInitialSize = 100
	cfg.Scan = Scan{Enabled: true, Tick: Duration(2 * time.Second), MinFetch: 10, MaxFetch: 100}
	return cfg
}

func batch(from, n int) []Model {
	var b []Model
	for i := from; i < from+n; i++ {
		b = append(b, Single(fmt.Sprintf("p%d", i), float64(i%1000), nil))
	}
	return b
}

func TestScanPlan(t *testing.T) {
	f := newFinder(t, scanConfig())
	p := f.ScanPlan(t0)
	if !p.Due || p.Limit != 100 || p.Cursor != "" {
		t.Fatalf("first plan = %+v, want due, 100 from the start", p)
	}
	rep, err := f.ApplyScan(batch(0, 300), "after-299", t0)
	if err != nil || rep.Applied != 300 || rep.Wrapped {
		t.Fatalf("ApplyScan = %+v, %v", rep, err)
	}
	p = f.ScanPlan(t0.Add(time.Second))
	want := 100 - int(math.Round(90*float64(f.Len())/1000))
	if p.Due || !p.At.Equal(t0.Add(2*time.Second)) || p.Cursor != "after-299" || p.Limit != want || p.Limit >= 100 {
		t.Fatalf("plan = %+v, want not due until +2s, limit %d", p, want)
	}
	if p := f.ScanPlan(t0.Add(2 * time.Second)); !p.Due {
		t.Fatal("not due after a tick")
	}
	// The end of the table: the next pass starts over.
	rep, err = f.ApplyScan(batch(300, 10), "", t0.Add(2*time.Second))
	if err != nil || !rep.Wrapped || f.ScanPlan(t0).Cursor != "" || f.Stats().ScanPasses != 1 {
		t.Fatalf("end of pass = %+v, %v", rep, err)
	}
}

func TestScanSkipsBadRows(t *testing.T) {
	f := newFinder(t, scanConfig())
	rows := batch(0, 3)
	rows[1].Entries[0].MMR = math.NaN()
	rep, err := f.ApplyScan(rows, "c", t0)
	if err != nil || rep.Applied != 2 || rep.Rejected != 1 || len(rep.Errors) != 1 {
		t.Fatalf("ApplyScan = %+v, %v", rep, err)
	}
	wantField(t, rep.Errors[0], "invalid", "batch[1].entries[0].mmr")
	if f.Len() != 2 {
		t.Fatalf("Len = %d", f.Len())
	}
}

func TestScanDisabled(t *testing.T) {
	f := newFinder(t, baseConfig())
	if p := f.ScanPlan(t0); p.Due || p.Limit != 0 {
		t.Fatalf("plan = %+v, want never due", p)
	}
	_, err := f.ApplyScan(batch(0, 1), "", t0)
	wantField(t, err, "invalid", "scan.enabled")
	if f.Len() != 0 {
		t.Fatal("a refused scan changed the cache")
	}
}
