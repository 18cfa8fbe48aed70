// Package statshistory keeps each queue's statistics per minute in the
// store, so that the dashboard shows hours and days of history, across a
// restart, and not only the hour the ticket service holds in memory.
//
// Every minute the service takes the figures of the minutes that ended
// since it last did (arrivals, matches, wait percentiles, mean quality; see
// queuestats.Minute) and writes each queue's non-empty minutes as
// documents, kind "queue-minutes/<queue>", id "<minute>/<run>": the minute
// in UTC (2006-01-02T15:04Z, so id order is time order) and this process's
// run (node and start time), so that the nodes of a cluster, and a process
// and the one that replaces it within the same minute, never overwrite each
// other's minutes; a reader adds them up. Minutes older than Keep (7 days)
// are deleted, at most once an hour. Closing writes the current, partial
// minute, so a restart loses nothing the process saw.
//
// Time comes from Options.Now and waiting from Options.Wait, so a test
// drives the minutes without sleeping.
package statshistory

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/service/ticketsvc/queuestats"
)

// Source gives the figures per minute: the ticket service.
type Source interface {
	QueueMinutes(from, to time.Time) []queuestats.Minute
	Queues() []string
}

// Options configure the service.
type Options struct {
	Source Source
	Docs   cupid.DocumentStore
	// Node names this process in a cluster ("" alone).
	Node string
	// Keep is how long minutes are kept; DefaultKeep when zero.
	Keep time.Duration
	// Now is the clock (time.Now when nil); Wait waits d or until ctx ends
	// (a timer when nil).
	Now    func() time.Time
	Wait   func(ctx context.Context, d time.Duration) error
	Logger *slog.Logger
}

// DefaultKeep is a week of minutes: 10,080 small documents a queue and run.
const DefaultKeep = 7 * 24 * time.Hour

// kindPrefix starts each queue's documents' kind.
const kindPrefix = "queue-minutes/"

// idLayout is the minute part of an id.
const idLayout = "2006-01-02T15:04Z"

// Service writes and reads the history.
type Service struct {
	o   Options
	log *slog.Logger
	run string

	mu       sync.Mutex
	written  time.Time // minutes before it are written
	pruned   time.Time // when the last pruning ran
	cancel   context.CancelFunc
	done     chan struct{}
	finished bool
}

// New makes the service; minutes count from now (the ticket service holds
// nothing older).
func New(o Options) *Service {
	if o.Keep <= 0 {
		o.Keep = DefaultKeep
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Wait == nil {
		o.Wait = wait
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	now := o.Now().UTC()
	run := fmt.Sprint(now.UnixNano())
	if o.Node != "" {
		run = o.Node + "-" + run
	}
	return &Service{o: o, log: log, run: strings.ReplaceAll(run, "/", "_"), written: now.Truncate(time.Minute)}
}

func wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Kind is the documents' kind of a queue's minutes.
func Kind(queue string) string { return kindPrefix + queue }

// Start writes the minutes as they end, a few seconds after each, until
// Close.
func (s *Service) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	s.mu.Lock()
	s.cancel, s.done = cancel, done
	s.mu.Unlock()
	go func() {
		defer close(done)
		for {
			now := s.o.Now()
			next := now.Truncate(time.Minute).Add(time.Minute + 2*time.Second)
			if s.o.Wait(ctx, next.Sub(now)) != nil {
				return
			}
			if err := s.Flush(ctx, false); err != nil && ctx.Err() == nil {
				s.log.Warn("statistics history: writing the last minute failed; trying again next minute", "err", err)
			}
		}
	}()
}

// Close stops the writing and writes what the process saw of the current
// minute.
func (s *Service) Close(ctx context.Context) error {
	s.mu.Lock()
	cancel, done := s.cancel, s.done
	s.cancel, s.done = nil, nil
	s.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
	return s.Flush(ctx, true)
}

// Flush writes the minutes that ended since the last flush (with partial,
// the current minute too, and nothing after it), and prunes once an hour.
func (s *Service) Flush(ctx context.Context, partial bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		return nil
	}
	now := s.o.Now().UTC()
	to := now.Truncate(time.Minute)
	if partial {
		to = to.Add(time.Minute)
		s.finished = true
	}
	if !to.After(s.written) {
		return nil
	}
	for _, m := range s.o.Source.QueueMinutes(s.written, to) {
		body, err := json.Marshal(m)
		if err != nil {
			return err
		}
		if err := s.o.Docs.PutDocument(ctx, cupid.Fence{}, Kind(m.Queue), m.At.UTC().Format(idLayout)+"/"+s.run, body, now); err != nil {
			return fmt.Errorf("statistics history of %s at %s: %w", m.Queue, m.At.Format(idLayout), err)
		}
	}
	s.written = to
	if now.Sub(s.pruned) >= time.Hour {
		s.pruned = now
		return s.prune(ctx, now.Add(-s.o.Keep))
	}
	return nil
}

// prune deletes every queue's minutes before horizon, in pages.
func (s *Service) prune(ctx context.Context, horizon time.Time) error {
	cut := horizon.UTC().Format(idLayout)
	for _, q := range s.o.Source.Queues() {
		for {
			ds, err := s.o.Docs.Documents(ctx, Kind(q), "", 500)
			if err != nil {
				return err
			}
			n := 0
			for _, d := range ds {
				if d.ID >= cut {
					break
				}
				if err := s.o.Docs.DeleteDocument(ctx, cupid.Fence{}, Kind(q), d.ID); err != nil {
					return err
				}
				n++
			}
			if n < 500 {
				break
			}
		}
	}
	return nil
}

// Point is a queue's figures over one step of a range: the minutes' sums,
// their wait percentiles and quality averaged weighted by their samples
// (an approximation: percentiles of several minutes cannot be merged
// exactly without the waits themselves).
type Point struct {
	At       time.Time `json:"at"`
	Arrivals int       `json:"arrivals"`
	Matches  int       `json:"matches"`
	Waited   int       `json:"waited"`
	P50      float64   `json:"p50_seconds"`
	P90      float64   `json:"p90_seconds"`
	P99      float64   `json:"p99_seconds"`
	Scored   int       `json:"scored"`
	Quality  float64   `json:"quality"`
}

// Read returns queue's history over [from, to) in steps of step (at least
// a minute): one Point a step, oldest first, empty steps included, so a
// chart draws them as they are.
func (s *Service) Read(ctx context.Context, queue string, from, to time.Time, step time.Duration) ([]Point, error) {
	step = max(step.Truncate(time.Minute), time.Minute)
	from = from.UTC().Truncate(step)
	n := int(math.Ceil(float64(to.Sub(from)) / float64(step)))
	if n <= 0 {
		return []Point{}, nil
	}
	out := make([]Point, n)
	for i := range out {
		out[i].At = from.Add(time.Duration(i) * step)
	}
	end := to.UTC().Format(idLayout)
	after := from.Format(idLayout)
	// The minute of from itself sorts after its bare prefix.
	for {
		ds, err := s.o.Docs.Documents(ctx, Kind(queue), after, 1000)
		if err != nil {
			return nil, err
		}
		for _, d := range ds {
			if d.ID >= end {
				return finish(out), nil
			}
			var m queuestats.Minute
			if json.Unmarshal(d.Body, &m) != nil {
				continue
			}
			i := int(m.At.Sub(from) / step)
			if i < 0 || i >= n {
				continue
			}
			p := &out[i]
			p.Arrivals += m.Arrivals
			p.Matches += m.Matches
			w := float64(m.Waited)
			p.P50 += m.P50 * w
			p.P90 += m.P90 * w
			p.P99 += m.P99 * w
			p.Waited += m.Waited
			p.Quality += m.Quality * float64(m.Scored)
			p.Scored += m.Scored
		}
		if len(ds) < 1000 {
			return finish(out), nil
		}
		after = ds[len(ds)-1].ID
	}
}

// finish turns the weighted sums into averages.
func finish(ps []Point) []Point {
	for i := range ps {
		p := &ps[i]
		if p.Waited > 0 {
			w := float64(p.Waited)
			p.P50, p.P90, p.P99 = round(p.P50/w), round(p.P90/w), round(p.P99/w)
		}
		if p.Scored > 0 {
			p.Quality = round(p.Quality / float64(p.Scored))
		}
	}
	return ps
}

func round(x float64) float64 { return math.Round(x*1000) / 1000 }
