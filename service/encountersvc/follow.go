package encountersvc

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/encounter"
)

// The followers record the real-time queues' matches from their match
// logs, the way a backend reads them: every "formed" (and "backfilled",
// whose match holds the newcomers) becomes a meeting of the match's
// teams. A follower per queue hands what it hears to a writer that stores
// everything waiting at that moment in one transaction, then its cursor
// (the last match event recorded, a document of kind CursorKind); after a
// restart it reads on from the cursor. Meetings are unique by match, so
// reading an event twice (a cursor written before a crash, two nodes for
// a moment) stores it once. On several nodes the followers run on the
// node that holds the encounters lease (RunFollowers, StopFollowers).

// CursorKind is the document kind of the followers' cursors (id: the
// queue).
const CursorKind = "encounter-cursor"

// maxFollowBatch bounds the matches one write takes.
const maxFollowBatch = 512

// retryAfter is how long a follower waits after its watch or its write
// failed.
const retryAfter = time.Second

type cursor struct {
	Seq int64 `json:"seq"`
}

// RunFollowers starts a follower for each queue to follow; they run until
// StopFollowers or ctx ends. The fence is not used: the rows are unique by
// meeting, so a node that lost the lease a moment ago writes nothing
// wrong.
func (s *Service) RunFollowers(ctx context.Context, _ cupid.Fence) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stop != nil {
		return nil
	}
	ctx, s.stop = context.WithCancel(context.WithoutCancel(ctx))
	for _, q := range s.follow {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.followQueue(ctx, q)
		}()
	}
	return nil
}

// StopFollowers stops the followers and waits for them.
func (s *Service) StopFollowers() {
	s.mu.Lock()
	stop := s.stop
	s.stop = nil
	s.mu.Unlock()
	if stop != nil {
		stop()
	}
	s.wg.Wait()
}

// Position is the last match event of a queue the follower recorded (0
// before the first): tests and the dashboard wait on it.
func (s *Service) Position(queue string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.position[queue]
}

func (s *Service) setPosition(queue string, seq int64) {
	s.mu.Lock()
	s.position[queue] = seq
	if s.moved != nil {
		close(s.moved)
	}
	s.moved = make(chan struct{})
	s.mu.Unlock()
}

// WaitPosition waits until the follower of a queue recorded its log up to
// seq, or ctx ends.
func (s *Service) WaitPosition(ctx context.Context, queue string, seq int64) error {
	for {
		s.mu.Lock()
		at := s.position[queue]
		if s.moved == nil {
			s.moved = make(chan struct{})
		}
		moved := s.moved
		s.mu.Unlock()
		if at >= seq {
			return nil
		}
		select {
		case <-moved:
		case <-ctx.Done():
			return fmt.Errorf("the encounter follower of %s is at %d, not %d: %w", queue, at, seq, ctx.Err())
		}
	}
}

func (s *Service) followQueue(ctx context.Context, queue string) {
	for ctx.Err() == nil {
		after, err := s.readCursor(ctx, queue)
		if err == nil {
			s.setPosition(queue, max(after, s.Position(queue)))
			err = s.followFrom(ctx, queue, after)
		}
		if ctx.Err() != nil {
			return
		}
		s.log.Warn("encounters: following a queue's matches failed; trying again", "queue", queue, "err", err)
		t := time.NewTimer(retryAfter)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// followFrom watches the queue's log after a seq and writes what it hears
// in batches, until the watch or a write fails.
func (s *Service) followFrom(ctx context.Context, queue string, after int64) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	heard := make(chan cupid.MatchEvent, maxFollowBatch)
	done := make(chan error, 1)
	go func() {
		werr := s.writeHeard(ctx, queue, heard)
		// A failed write gives the watch up (its send or its wait ends),
		// so the follower starts again from the cursor instead of
		// hearing on with nobody writing.
		cancel(werr)
		done <- werr
	}()
	// The pending gauge goes up as an event is handed over and down as
	// its batch is recorded, so it counts the events waiting and the
	// batch being written, and reads 0 once all is recorded.
	lag := s.metrics.lag.WithLabelValues(queue)
	err := s.watch(ctx, queue, after, func(ev cupid.MatchEvent) error {
		lag.Inc()
		select {
		case heard <- ev:
			return nil
		case <-ctx.Done():
			lag.Dec()
			return context.Cause(ctx)
		}
	})
	cancel(err)
	<-done
	lag.Set(0) // what was heard and not recorded is heard again from the cursor
	// Whichever ended first says why: the write's failure, the watch's,
	// or ctx's end.
	return context.Cause(ctx)
}

// writeHeard stores the heard events' meetings, everything waiting at
// each moment in one write, then the cursor.
func (s *Service) writeHeard(ctx context.Context, queue string, heard <-chan cupid.MatchEvent) error {
	for {
		var batch []cupid.MatchEvent
		select {
		case ev := <-heard:
			batch = append(batch, ev)
		case <-ctx.Done():
			return nil
		}
	more:
		for len(batch) < maxFollowBatch {
			select {
			case ev := <-heard:
				batch = append(batch, ev)
			default:
				break more
			}
		}
		if err := s.recordMatches(ctx, queue, batch); err != nil {
			// Give the watch up: it starts again from the cursor.
			return err
		}
	}
}

// recordMatches stores the meetings of a batch of match events and moves
// the queue's cursor past them.
func (s *Service) recordMatches(ctx context.Context, queue string, batch []cupid.MatchEvent) error {
	var es []cupid.Encounter
	since := s.window.Since(s.now())
	for _, ev := range batch {
		if ev.Match == nil || ev.Kind != cupid.MatchEventFormed && ev.Kind != cupid.MatchEventBackfilled {
			continue
		}
		m := ev.Match
		if m.CreatedAt.Before(since) {
			continue // older than anything the history keeps
		}
		teams := make([][]string, len(m.Teams))
		for i, t := range m.Teams {
			teams[i] = t.PlayerIDs
		}
		got, err := encounter.QueueMeeting(queue, m.ID, m.CreatedAt, teams).Encounters()
		if err != nil {
			// A match the engine formed is always a valid meeting; one
			// that is not is logged and skipped, never retried forever.
			s.log.Error("encounters: a match cannot be recorded", "queue", queue, "match", m.ID, "err", err)
			continue
		}
		es = append(es, got...)
	}
	last := batch[len(batch)-1].Seq
	if len(es) > 0 {
		if err := s.store.AddEncounters(ctx, es); err != nil {
			return fmt.Errorf("record %d encounters: %w", len(es), err)
		}
		s.metrics.recorded.WithLabelValues(encounter.ModeQueue).Add(float64(len(es)))
	}
	if s.docs != nil {
		body, _ := json.Marshal(cursor{Seq: last}) // an int64 always encodes
		if err := s.docs.PutDocument(ctx, cupid.Fence{}, CursorKind, queue, body, s.now()); err != nil {
			return fmt.Errorf("store the cursor: %w", err)
		}
	}
	s.metrics.lag.WithLabelValues(queue).Sub(float64(len(batch)))
	s.setPosition(queue, last)
	return nil
}

func (s *Service) readCursor(ctx context.Context, queue string) (int64, error) {
	if s.docs == nil {
		return s.Position(queue), nil
	}
	// Documents lists after an id: the one before queue in order is
	// not known, so read from the start of the kind and pick queue.
	// Cursors are one per followed queue: a short list.
	after := ""
	for {
		docs, err := s.docs.Documents(ctx, CursorKind, after, 256)
		if err != nil {
			return 0, err
		}
		for _, d := range docs {
			if d.ID != queue {
				continue
			}
			var c cursor
			if err := json.Unmarshal(d.Body, &c); err != nil {
				return 0, fmt.Errorf("the cursor of queue %s cannot be read: %w", queue, err)
			}
			return c.Seq, nil
		}
		if len(docs) < 256 {
			return 0, nil
		}
		after = docs[len(docs)-1].ID
	}
}
