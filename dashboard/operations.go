package dashboard

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/service/retentionsvc"
	"github.com/cupid-match/cupid/service/statshistory"
)

// History is the statistics' history per minute kept in the store.
type History = statshistory.Service

// Retention is the retention service as its section reads it.
type Retention interface {
	Running() bool
	Passes() []retentionsvc.Report
	Keep() map[cupid.RetentionKind]time.Duration
	Store() cupid.Pruner
}

// Cluster is what the nodes page reads of a cluster's database.
type Cluster interface {
	// Nodes are the nodes that sent a heartbeat lately, in id order.
	Nodes(ctx context.Context) ([]NodeInfo, error)
	// Leases are every lease, lapsed ones included, in name order.
	Leases(ctx context.Context) ([]LeaseInfo, error)
	// TTL is how long a heartbeat or lease lasts without renewal.
	TTL() time.Duration
}

// NodeInfo is one node of a cluster.
type NodeInfo struct {
	ID      string    `json:"id"`
	Addr    string    `json:"addr"`
	Started time.Time `json:"started"`
	Seen    time.Time `json:"seen"`
}

// LeaseInfo is who holds a lease until when.
type LeaseInfo struct {
	Name    string    `json:"name"`
	Owner   string    `json:"owner"`
	Token   int64     `json:"token"`
	Expires time.Time `json:"expires"`
}

// historyRange is a range the queue pages offer: its name, its span and
// the step of its chart.
type historyRange struct {
	name       string
	span, step time.Duration
}

// historyRanges are the time ranges the queue pages offer, each with the
// step its chart is drawn in (so every range has under a hundred bars).
var historyRanges = []historyRange{
	{"1h", time.Hour, time.Minute},
	{"6h", 6 * time.Hour, 5 * time.Minute},
	{"24h", 24 * time.Hour, 15 * time.Minute},
	{"7d", 7 * 24 * time.Hour, 2 * time.Hour},
}

func rangeNames() string {
	var ns []string
	for _, r := range historyRanges {
		ns = append(ns, r.name)
	}
	return strings.Join(ns, ", ")
}

// history serves GET history?queue=…&range=1h|6h|24h|7d: a queue's
// figures per step over the range, from the store.
func (s *server) history(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	queue, name := q.Get("queue"), q.Get("range")
	if queue == "" {
		s.fail(w, r, cupid.Invalid("queue", "required: the queue whose history to read"))
		return
	}
	if _, _, err := s.o.Tickets.Rulesets().Ruleset(queue); err != nil {
		s.fail(w, r, err)
		return
	}
	i := slices.IndexFunc(historyRanges, func(hr historyRange) bool { return hr.name == name })
	switch {
	case name == "":
		s.fail(w, r, cupid.Invalid("range", "required: one of %s", rangeNames()))
		return
	case i < 0:
		s.fail(w, r, cupid.Invalid("range", "%q is not a range; one of %s", name, rangeNames()))
		return
	case s.o.History == nil:
		s.fail(w, r, cupid.Errorf(cupid.CodeUnavailable, "range", "this server keeps no history of its statistics"))
		return
	}
	hr := historyRanges[i]
	now := s.o.Now()
	// The last step ends with the current minute, so the chart reaches now.
	to := now.Truncate(time.Minute).Add(time.Minute)
	points, err := s.o.History.Read(r.Context(), queue, to.Add(-hr.span), to, hr.step)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, map[string]any{"queue": queue, "range": hr.name, "step_seconds": hr.step.Seconds(), "points": points})
}

// nodeOut is a node with the leases it holds.
type nodeOut struct {
	NodeInfo
	// Live is whether its last heartbeat is younger than the lease time.
	Live  bool        `json:"live"`
	Age   float64     `json:"heartbeat_age_seconds"`
	Holds []LeaseInfo `json:"holds"`
}

// nodes serves GET nodes: a cluster's nodes, their heartbeats and what
// each runs (its unexpired leases), and the leases nobody holds.
func (s *server) nodes(w http.ResponseWriter, r *http.Request) {
	if s.o.Cluster == nil {
		writeJSON(w, map[string]any{"cluster": false, "nodes": []nodeOut{}, "unheld": []LeaseInfo{}})
		return
	}
	ns, err := s.o.Cluster.Nodes(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	ls, err := s.o.Cluster.Leases(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	now, ttl := s.o.Now(), s.o.Cluster.TTL()
	out := make([]nodeOut, len(ns))
	at := map[string]int{}
	for i, n := range ns {
		age := max(now.Sub(n.Seen), 0)
		out[i] = nodeOut{NodeInfo: n, Live: age < ttl, Age: age.Round(100 * time.Millisecond).Seconds(), Holds: []LeaseInfo{}}
		at[n.ID] = i
	}
	unheld := []LeaseInfo{}
	for _, l := range ls {
		i, ok := at[l.Owner]
		if !ok || l.Owner == "" || !l.Expires.After(now) {
			unheld = append(unheld, l)
			continue
		}
		out[i].Holds = append(out[i].Holds, l)
	}
	writeJSON(w, map[string]any{"cluster": true, "ttl_seconds": ttl.Seconds(), "nodes": out, "unheld": unheld})
}

// kindOut is one kind of data as the retention section shows it.
type kindOut struct {
	Kind   cupid.RetentionKind `json:"kind"`
	Rows   int64               `json:"rows"`
	Bytes  int64               `json:"bytes"`
	Oldest *time.Time          `json:"oldest,omitempty"`
	// Keep is how long the kind is kept once ended; absent: for ever.
	Keep *float64 `json:"keep_seconds,omitempty"`
}

// passOut is one retention pass.
type passOut struct {
	At      time.Time        `json:"at"`
	Took    float64          `json:"took_seconds"`
	Removed map[string]int   `json:"removed"`
	Related map[string]int   `json:"related"`
	Before  map[string]int64 `json:"ended_before_unix"`
	Failed  string           `json:"failed,omitempty"`
}

// retention serves GET retention: rows and bytes of each kind of data, the
// oldest kept, the rules, and the last passes on this node with what they
// removed.
func (s *server) retention(w http.ResponseWriter, r *http.Request) {
	if s.o.Retention == nil {
		writeJSON(w, map[string]any{"retention": false, "kinds": []kindOut{}, "passes": []passOut{}})
		return
	}
	held, err := s.retained(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	keep := s.o.Retention.Keep()
	kinds := []kindOut{}
	for _, h := range held {
		k := kindOut{Kind: h.Kind, Rows: h.Rows, Bytes: h.Bytes}
		if !h.Oldest.IsZero() {
			o := h.Oldest.UTC()
			k.Oldest = &o
		}
		if d, ok := keep[h.Kind]; ok {
			sec := d.Seconds()
			k.Keep = &sec
		}
		kinds = append(kinds, k)
	}
	passes := []passOut{}
	for _, p := range s.o.Retention.Passes() {
		po := passOut{At: p.At.UTC(), Took: p.Took.Seconds(), Removed: map[string]int{}, Related: map[string]int{}, Before: map[string]int64{}, Failed: p.Failed}
		for _, k := range p.Kinds {
			po.Removed[string(k.Kind)] = k.Removed
			po.Related[string(k.Kind)] = k.Related
			po.Before[string(k.Kind)] = k.Before.Unix()
		}
		passes = append(passes, po)
	}
	writeJSON(w, map[string]any{"retention": true, "running": s.o.Retention.Running(), "kinds": kinds, "passes": passes})
}

// retainedFor is how long the store's figures per kind are reused: reading
// them counts every table and, on SQLite, walks the file's pages, which an
// operator clicking "Refresh" must not repeat at will.
const retainedFor = 30 * time.Second

// retained returns what the store holds per kind, read at most once per
// retainedFor (one reader at a time; the others wait for its answer).
func (s *server) retained(ctx context.Context) ([]cupid.Retained, error) {
	s.retainedMu.Lock()
	defer s.retainedMu.Unlock()
	now := s.o.Now()
	if s.retainedVal != nil && now.Sub(s.retainedAt) < retainedFor && !now.Before(s.retainedAt) {
		return s.retainedVal, nil
	}
	held, err := s.o.Retention.Store().Retained(ctx)
	if err != nil {
		return nil, err
	}
	s.retainedVal, s.retainedAt = held, now
	return held, nil
}
