// Package retentionsvc removes the data the configuration keeps no longer,
// continuously and gently: a pass takes every kind with a rule in turn and
// asks the store (cupid.Pruner) to remove its old rows in batches of a
// bounded size, each its own short transaction, with a pause between two
// batches so that intake and matching get the store's writer in between.
// What counts as old and what as live is not decided here but by
// lifecycle.Aged, inside the store's batch.
//
// One node removes: on several nodes sharing a database the one holding
// the retention lease (cluster), whose fence every batch carries; a batch
// refused because the lease moved ends the passes on this node.
//
// Kinds named in Options.Export are written out before they are deleted
// (export.go): select the batch, write its rows, delete what was written.
// Only the node that removes exports, so on several nodes each node's
// directory receives what was removed while that node held the lease.
//
// Time comes from Options.Now and waiting from Options.Wait, so tests run
// passes at any simulated time without sleeping.
package retentionsvc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	cupid "github.com/cupid-match/cupid"
)

// Compacter is a store that gives space back after rows were removed (the
// embedded store: an incremental vacuum and a WAL checkpoint). A pass that
// removed rows calls it.
type Compacter interface {
	Compact(ctx context.Context) error
}

// Options configure the service.
type Options struct {
	Store cupid.Pruner
	// Keep is how long each kind is kept after it ended; a kind absent is
	// kept for ever.
	Keep map[cupid.RetentionKind]time.Duration
	// Batch bounds the rows of one transaction (500 when zero); Pause is
	// the rest between two (none when zero); Interval the time between
	// two passes (a minute when zero).
	Batch    int
	Pause    time.Duration
	Interval time.Duration
	// MeasureEvery is the least time between two readings of what the
	// store holds (Store.Retained), DefaultMeasureEvery when zero. A
	// reading counts every row and sums the pages of every table — the
	// whole database read — so it is not made after every pass: with
	// passes a second apart it cost the notification p99 more than the
	// removing did.
	MeasureEvery time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Wait waits d or until ctx ends (a timer when nil).
	Wait func(ctx context.Context, d time.Duration) error
	// Export, when it names kinds, writes their rows out before the
	// batches that delete them (export.go).
	Export   *Export
	Logger   *slog.Logger
	Registry prometheus.Registerer
}

// Service runs retention passes.
type Service struct {
	o       Options
	log     *slog.Logger
	metrics *metrics
	export  *exporter

	// passMu makes passes one at a time: the service's own and one asked
	// for meanwhile (an operator's, a test's) would remove the same
	// batches twice and share the export's open files.
	passMu sync.Mutex

	mu      sync.Mutex
	cancel  context.CancelFunc
	done    chan struct{}
	last    Report
	running bool
	// passes are the last keptPasses passes' reports, oldest first, for
	// the dashboard.
	passes []Report
	// retained is the last reading of what the store holds, made at
	// measured.
	retained []cupid.Retained
	measured time.Time
}

// DefaultMeasureEvery is Options.MeasureEvery's default.
const DefaultMeasureEvery = 10 * time.Minute

// keptPasses bounds the reports Passes returns.
const keptPasses = 50

// Report is what a pass did.
type Report struct {
	// At is when the pass started; Took how long it ran.
	At   time.Time
	Took time.Duration
	// Kinds are the kinds with a rule, in cupid.RetentionKinds order.
	Kinds []KindReport
	// Retained is what the store held at RetainedAt: after this pass, or
	// after an earlier one when the last reading is younger than
	// Options.MeasureEvery.
	Retained   []cupid.Retained
	RetainedAt time.Time
	// Failed says why the pass stopped early; empty when it completed.
	Failed string
}

// KindReport is one kind's part of a pass.
type KindReport struct {
	Kind    cupid.RetentionKind
	Before  time.Time // the horizon: what ended before it was old
	Removed int
	Related int
	Batches int
	// Exported counts the rows written to the export before their
	// batches; Failed says why the kind's pass stopped early (a write to
	// the export that failed: nothing of that batch was deleted).
	Exported int    `json:",omitempty"`
	Failed   string `json:",omitempty"`
}

// New makes the service; it runs nothing until Start or Pass.
func New(o Options) (*Service, error) {
	if o.Store == nil {
		return nil, errors.New("retentionsvc: no store")
	}
	if o.Batch <= 0 {
		o.Batch = 500
	}
	if o.Interval <= 0 {
		o.Interval = time.Minute
	}
	if o.MeasureEvery <= 0 {
		o.MeasureEvery = DefaultMeasureEvery
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
	m := newMetrics(o.Registry)
	x, err := newExporter(o.Export, o.Store, m)
	if err != nil {
		return nil, err
	}
	return &Service{o: o, log: log, metrics: m, export: x}, nil
}

func wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Pass runs one pass over every kind with a rule: batches until the store
// says the kind's pass reached rows too young, a pause between two
// batches. A batch that fails ends the pass with its error (ErrFenced when
// the lease moved); what earlier batches removed stays removed. A write to
// the export that fails stops its kind only (its KindReport says why) and
// the pass goes on with the other kinds; the pass then returns that
// error.
func (s *Service) Pass(ctx context.Context, fence cupid.Fence) (Report, error) {
	s.passMu.Lock()
	defer s.passMu.Unlock()
	start := s.o.Now()
	rep := Report{At: start}
	err, exportErr := s.pass(ctx, fence, start, &rep)
	rep.Took = s.o.Now().Sub(start)
	if err == nil {
		removed := 0
		for _, k := range rep.Kinds {
			removed += k.Removed
		}
		if c, ok := s.o.Store.(Compacter); ok && removed > 0 {
			if cerr := c.Compact(ctx); cerr != nil {
				s.log.Warn("retention: giving space back failed", "err", cerr)
			}
		}
		s.mu.Lock()
		due := s.measured.IsZero() || s.o.Now().Sub(s.measured) >= s.o.MeasureEvery
		s.mu.Unlock()
		if due {
			if r, rerr := s.o.Store.Retained(ctx); rerr == nil {
				s.mu.Lock()
				s.retained, s.measured = r, s.o.Now()
				s.mu.Unlock()
			} else {
				s.log.Warn("retention: reading what the store holds failed", "err", rerr)
			}
		}
	}
	s.mu.Lock()
	rep.Retained, rep.RetainedAt = s.retained, s.measured
	s.mu.Unlock()
	if err == nil {
		err = exportErr
	}
	if err != nil {
		rep.Failed = err.Error()
	}
	s.metrics.pass(rep, err)
	s.mu.Lock()
	s.last = rep
	s.passes = append(s.passes, rep)
	if len(s.passes) > keptPasses {
		s.passes = s.passes[len(s.passes)-keptPasses:]
	}
	s.mu.Unlock()
	return rep, err
}

// pass runs the kinds in turn. err ends the pass (the store failed, the
// lease moved, ctx ended); exportErr are the kinds whose export failed,
// each of which stopped alone.
func (s *Service) pass(ctx context.Context, fence cupid.Fence, now time.Time, rep *Report) (err, exportErr error) {
	first := true
	var failed []error
	for _, kind := range cupid.RetentionKinds {
		keep, ok := s.o.Keep[kind]
		if !ok {
			continue
		}
		kr := KindReport{Kind: kind, Before: now.Add(-keep)}
		err := s.passKind(ctx, fence, &kr, &first)
		s.logExport(kind)
		rep.Kinds = append(rep.Kinds, kr)
		var xe *exportError
		switch {
		case errors.As(err, &xe):
			kr := &rep.Kinds[len(rep.Kinds)-1]
			kr.Failed = xe.Error()
			s.log.Error("retention: writing the export failed; this kind's old rows stay until a pass can write them", "kind", kind, "err", xe.err)
			failed = append(failed, fmt.Errorf("retention of %s: %w", kind, err))
		case err != nil:
			return err, errors.Join(failed...)
		}
	}
	return nil, errors.Join(failed...)
}

// exportError is a write to the export that failed.
type exportError struct{ err error }

func (e *exportError) Error() string { return "export: " + e.err.Error() }
func (e *exportError) Unwrap() error { return e.err }

// passKind runs one kind's batches to the end of its pass. An exported
// kind's batch is selected, written out, then removed: only the rows
// written.
func (s *Service) passKind(ctx context.Context, fence cupid.Fence, kr *KindReport, first *bool) error {
	kind := kr.Kind
	cursor := ""
	for {
		if !*first && s.o.Pause > 0 {
			if err := s.o.Wait(ctx, s.o.Pause); err != nil {
				return err
			}
		}
		*first = false
		req := cupid.PruneRequest{Kind: kind, Before: kr.Before, Limit: s.o.Batch, After: cursor}
		var r cupid.Pruned
		remove := true
		if s.export.exports(kind) {
			sel := req
			sel.Select = true
			chosen, err := s.o.Store.Prune(ctx, fence, sel)
			if err != nil {
				return fmt.Errorf("retention of %s: %w", kind, err)
			}
			r.Next = chosen.Next
			// Only what was written goes: none of a batch that chose
			// nothing, not a row that aged between the two calls.
			req.Only = []string{}
			if len(chosen.IDs) > 0 {
				written, err := s.export.write(ctx, kind, chosen.IDs)
				if err != nil {
					return &exportError{err}
				}
				req.Only = append(req.Only, written...)
				kr.Exported += len(written)
			}
			remove = len(req.Only) > 0
		}
		if remove {
			var err error
			if r, err = s.o.Store.Prune(ctx, fence, req); err != nil {
				return fmt.Errorf("retention of %s: %w", kind, err)
			}
		}
		kr.Batches++
		kr.Removed += r.Removed
		kr.Related += r.Related
		if r.Next == "" || r.Next == cursor {
			return nil
		}
		cursor = r.Next
	}
}

// logExport says, file by file, what the kind's pass wrote to the export.
func (s *Service) logExport(kind cupid.RetentionKind) {
	if !s.export.exports(kind) {
		return
	}
	for _, path := range slices.Sorted(maps.Keys(s.export.files)) {
		w := s.export.files[path]
		s.log.Info("retention exported rows before deleting them", "kind", kind, "file", path, "rows", w.rows, "bytes", w.bytes)
	}
	clear(s.export.files)
}

// Start runs a pass at once and then every Interval, under fence, until
// Stop or a batch refused by the fence. Starting again (the lease changed
// hands and came back) stops the passes running first.
func (s *Service) Start(fence cupid.Fence) {
	s.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	s.mu.Lock()
	s.cancel, s.done, s.running = cancel, done, true
	s.mu.Unlock()
	go func() {
		defer close(done)
		defer func() {
			s.mu.Lock()
			s.running = false
			s.mu.Unlock()
		}()
		for {
			rep, err := s.Pass(ctx, fence)
			switch {
			case errors.Is(err, cupid.ErrFenced):
				s.log.Info("retention: the lease moved; this node stops removing")
				return
			case ctx.Err() != nil:
				return
			case err != nil:
				s.log.Warn("retention pass failed; trying again at the next", "err", err)
			default:
				for _, k := range rep.Kinds {
					if k.Removed > 0 {
						s.log.Info("retention removed old data", "kind", k.Kind, "rows", k.Removed, "related", k.Related, "ended_before", k.Before)
					}
				}
			}
			if s.o.Wait(ctx, s.o.Interval) != nil {
				return
			}
		}
	}()
}

// Stop ends the passes and waits for the one running; a batch in flight
// finishes first (it is short).
func (s *Service) Stop() {
	s.mu.Lock()
	cancel, done := s.cancel, s.done
	s.cancel, s.done = nil, nil
	s.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// Running reports whether passes run on this node.
func (s *Service) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running
}

// Last returns the last pass's report (zero before the first).
func (s *Service) Last() Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

// Passes returns the reports of the last passes on this node (at most 50),
// newest first.
func (s *Service) Passes() []Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Report, len(s.passes))
	for i, r := range s.passes {
		out[len(out)-1-i] = r
	}
	return out
}

// Keep returns how long each kind with a rule is kept.
func (s *Service) Keep() map[cupid.RetentionKind]time.Duration {
	out := make(map[cupid.RetentionKind]time.Duration, len(s.o.Keep))
	for k, d := range s.o.Keep {
		out[k] = d
	}
	return out
}

// Store is the store the service prunes, which also says what it holds.
func (s *Service) Store() cupid.Pruner { return s.o.Store }
