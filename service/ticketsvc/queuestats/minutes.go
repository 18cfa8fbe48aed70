package queuestats

import (
	"slices"
	"time"
)

// Minute is one queue's figures over one whole minute: what a history
// that outlives the process (the dashboard's longer ranges) keeps.
type Minute struct {
	Queue string `json:"queue"`
	// At is the minute's start.
	At       time.Time `json:"at"`
	Arrivals int       `json:"arrivals"`
	Matches  int       `json:"matches"`
	// Waited counts the matched tickets with a known wait; P50, P90 and
	// P99 are their waits' percentiles (nearest rank), in seconds.
	Waited int     `json:"waited"`
	P50    float64 `json:"p50_seconds"`
	P90    float64 `json:"p90_seconds"`
	P99    float64 `json:"p99_seconds"`
	// Scored counts the matches with a quality; Quality is their mean.
	Scored  int     `json:"scored"`
	Quality float64 `json:"quality"`
}

// Empty reports whether nothing happened in the minute.
func (m Minute) Empty() bool { return m.Arrivals == 0 && m.Matches == 0 && m.Waited == 0 }

// Minutes returns queue's figures for each whole minute starting in
// [from, to), oldest first, from what the rings hold: only the last hour,
// and, for waits and qualities, only the samples still kept (at most
// keptWaits tickets and keptQualities matches a key). Empty minutes are
// left out.
func (r *Recorder) Minutes(queue string, from, to time.Time) []Minute {
	first, last := from.Unix()/60, to.Unix()/60 // last is excluded
	if from.Unix()%60 != 0 {
		first++
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	f := r.queues[queue]
	if f == nil {
		f = &queueFlows{}
	}
	var ks []*keyStats
	for key, k := range r.keys {
		if key.Queue == queue {
			ks = append(ks, k)
		}
	}
	if k := r.others[queue]; k != nil {
		ks = append(ks, k)
	}
	var out []Minute
	for m := max(first, last-60); m < last; m++ {
		at := time.Unix(m*60, 0).UTC()
		mi := Minute{Queue: queue, At: at, Arrivals: f.arrMin.at(m), Matches: f.matMin.at(m)}
		var waits []float64
		var sum float64
		for _, k := range ks {
			for _, w := range k.waits {
				if w.at != 0 && w.at/60 == m {
					waits = append(waits, float64(w.wait))
				}
			}
			for _, q := range k.quals {
				if q.at != 0 && q.at/60 == m {
					mi.Scored++
					sum += float64(q.score)
				}
			}
		}
		if mi.Scored > 0 {
			mi.Quality = sum / float64(mi.Scored)
		}
		if len(waits) > 0 {
			slices.Sort(waits)
			mi.Waited = len(waits)
			mi.P50, mi.P90, mi.P99 = percentile(waits, 0.5), percentile(waits, 0.9), percentile(waits, 0.99)
		}
		if !mi.Empty() {
			out = append(out, mi)
		}
	}
	return out
}

// at is the count of one unit, 0 when the ring no longer holds it.
func (r *countRing) at(unit int64) int {
	if unit < 0 {
		return 0
	}
	if s := r.slots[unit%60]; s.at == unit {
		return int(s.n)
	}
	return 0
}
