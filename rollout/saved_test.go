package rollout

import (
	"encoding/json"
	"testing"
	"time"
)

func TestSavedRingRestores(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	var full Ring
	for i := range Kept + 10 {
		full.Match(at(i), 0.5, []time.Duration{time.Duration(i) * time.Millisecond})
	}
	for _, c := range []struct {
		name string
		ring func() *Ring
		// what the restored ring holds after the window's start
		from time.Time
		want Figures
	}{
		{"an empty ring takes the saved samples", func() *Ring {
			var r Ring
			r.Match(at(10), 0.9, []time.Duration{10 * time.Second, 20 * time.Second})
			r.Match(at(20), 0.7, []time.Duration{30 * time.Second, 40 * time.Second})
			var out Ring
			out.Restore(decode(t, r.Save(at(0))))
			return &out
		}, at(0), Figures{Samples: 4, Matches: 2, WaitP50: 20, WaitP90: 40, WaitP99: 40, MeanQuality: 0.8}},
		{"only what was after the window's start is saved", func() *Ring {
			var r Ring
			r.Match(at(10), 0.9, []time.Duration{10 * time.Second})
			r.Match(at(20), 0.7, []time.Duration{30 * time.Second})
			var out Ring
			out.Restore(decode(t, r.Save(at(15))))
			return &out
		}, at(0), Figures{Samples: 1, Matches: 1, WaitP50: 30, WaitP90: 30, WaitP99: 30, MeanQuality: 0.7}},
		{"the ring's own samples win over saved ones as old or newer", func() *Ring {
			var r Ring
			r.Match(at(10), 0.9, []time.Duration{10 * time.Second})
			r.Match(at(20), 0.7, []time.Duration{30 * time.Second})
			var out Ring
			out.Match(at(20), 0.5, []time.Duration{50 * time.Second})
			out.Restore(decode(t, r.Save(at(0))))
			return &out
		}, at(0), Figures{Samples: 2, Matches: 2, WaitP50: 10, WaitP90: 50, WaitP99: 50, MeanQuality: 0.7}},
		{"a full ring keeps its newest", func() *Ring {
			var out Ring
			out.Restore(decode(t, full.Save(at(-1))))
			return &out
		}, at(Kept + 5), Figures{Samples: 4, Matches: 4, WaitP50: float64(Kept+7) / 1000, WaitP90: float64(Kept+9) / 1000, WaitP99: float64(Kept+9) / 1000, MeanQuality: 0.5}},
		{"a damaged document is ignored", func() *Ring {
			var out Ring
			s := full.Save(at(-1))
			s.Waits = s.Waits[1:]
			s.Quals = s.Quals[1:]
			out.Restore(s)
			return &out
		}, at(0), Figures{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.ring().Figures(c.from); got != c.want {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
	// A full ring's window stays small.
	b, _ := json.Marshal(full.Save(at(-1)))
	if len(b) > 128_000 {
		t.Fatalf("a full ring saves to %d bytes", len(b))
	}
}

// decode passes a Saved through JSON, as the document does.
func decode(t *testing.T, s Saved) Saved {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var out Saved
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
