package opponent

import (
	"errors"
	"testing"
	"time"

	"github.com/cupid-match/cupid"
)

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// baseConfig is a small finder whose buckets are wide enough that test
// entries rarely share a slot: MMR 0..1000 in 10 buckets of 100, 1024 slots
// per bucket, nothing removed or ignored by thresholds.
func baseConfig() Config {
	return Config{
		PlayerCacheSize:                          1 << 15,
		MinMMR:                                   0,
		MaxMMR:                                   1000,
		MmrBucketCount:                           10,
		BucketInitialSize:                        1024,
		PlayerRemoveAfterCandidateOfferThreshold: ThresholdNever,
		PlayerIgnoreUpdateInsertThreshold:        ThresholdNever,
	}
}

func newFinder(t testing.TB, cfg Config) *Finder {
	t.Helper()
	f, err := New(cfg, 1)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return f
}

// put caches one single-entry player and fails the test if that evicted
// anyone, so a test never depends on an accidental hash collision.
func put(t testing.TB, f *Finder, id string, mmr float64, attrs map[string]cupid.Value) {
	t.Helper()
	r, err := f.Update(Single(id, mmr, attrs), t0)
	if err != nil {
		t.Fatalf("Update(%s): %v", id, err)
	}
	if r.Evicted != 0 || r.Ignored != 0 {
		t.Fatalf("Update(%s) = %+v, want a clean insert", id, r)
	}
}

func query(t testing.TB, f *Finder, q Query) Result {
	t.Helper()
	if q.AttackerID == "" {
		q.AttackerID = "attacker"
	}
	r, err := f.Query(q, t0)
	if err != nil {
		t.Fatalf("Query: %v", err)
	}
	return r
}

// wantField checks that err is an invalid error naming field.
func wantField(t *testing.T, err error, code cupid.Code, field string) {
	t.Helper()
	var e *cupid.Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want a *cupid.Error on %q", err, field)
	}
	if e.Code != code || e.Field != field {
		t.Fatalf("err = %q (code %s, field %q), want code %s on field %q", e.Error(), e.Code, e.Field, code, field)
	}
}

func str(s string) cupid.Value     { return cupid.String(s) }
func num(f float64) cupid.Value    { return cupid.Number(f) }
func strs(s ...string) cupid.Value { return cupid.Strings(s...) }

type attrs = map[string]cupid.Value

func codeOf(s string) cupid.Code { return cupid.Code(s) }
