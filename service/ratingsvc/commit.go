package ratingsvc

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/rating"
)

// request is one checked report on its way through the group commit.
type request struct {
	rating     *Rating
	match      *cupid.Match
	report     Report // normalised
	reportJSON []byte // as digest encoded it
	digest     string
	units      []unit
	sides      []rating.Side

	done     chan struct{}
	out      *Outcome
	repeated bool
	err      error
}

func (q *request) finish(out *Outcome, repeated bool, err error) {
	q.out, q.repeated, q.err = out, repeated, err
	close(q.done)
}

// maxBatch bounds one group commit. Bigger batches amortise the fsync and
// the reads further but make the first report of the batch wait longer.
const maxBatch = 512

// commitTimeout bounds one batch's reads and write, whoever is waiting.
const commitTimeout = 30 * time.Second

// submit queues a checked report for the group commit and waits for its
// outcome. The committing goroutine is started when reports arrive and
// none runs, and ends when the queue is empty, so an idle service holds
// none. A caller that stops waiting (its context ends) does not stop the
// commit: the report may still be rated, and a retry then finds it.
func (s *Service) submit(ctx context.Context, q *request) (*Outcome, bool, error) {
	q.done = make(chan struct{})
	s.commitMu.Lock()
	s.queue = append(s.queue, q)
	if !s.committing {
		s.committing = true
		go s.runCommits()
	}
	s.commitMu.Unlock()
	select {
	case <-q.done:
		return q.out, q.repeated, q.err
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
}

// runCommits takes every report waiting at the moment (up to maxBatch)
// and commits them together, until none waits: one transaction, one
// durable write for the batch, as ticket intake does. Under light load a
// batch is one report, so nobody waits for company. A match reported twice
// in the queue goes once per batch: the second finds the first's result.
func (s *Service) runCommits() {
	for {
		s.commitMu.Lock()
		var batch, rest []*request
		seen := map[string]bool{}
		for _, q := range s.queue {
			if len(batch) == maxBatch || seen[q.match.ID] {
				rest = append(rest, q)
				continue
			}
			seen[q.match.ID] = true
			batch = append(batch, q)
		}
		s.queue = rest
		if len(batch) == 0 {
			s.committing = false
			s.commitMu.Unlock()
			return
		}
		s.commitMu.Unlock()
		s.commit(batch)
	}
}

// commit rates a batch of reports and stores them in one SaveResults.
func (s *Service) commit(batch []*request) {
	ctx, cancel := context.WithTimeout(context.Background(), commitTimeout)
	defer cancel()
	if w := s.prepare(ctx, batch, 1); w != nil {
		s.write(ctx, w)
	}
}

// writeJob is a batch worked out and ready to be stored.
type writeJob struct {
	plan    batchPlan
	rows    []cupid.RatingRow
	attempt int
	gen     uint64 // the batch's number in known
}

// prepare reads the rows a batch needs and works every report out. The
// batch reads its rows once; each report is worked out from the rows as the
// reports before it in the batch left them, so two results of one player in
// a batch chain like two batches would. Reports that cannot be rated are
// answered here; nil means none is left to write.
func (s *Service) prepare(ctx context.Context, batch []*request, attempt int) *writeJob {
	for len(batch) > 0 {
		now := s.now().UTC()
		st, err := s.readState(ctx, batch, now)
		if err != nil {
			finishAll(batch, s.storeError(err))
			return nil
		}
		plan, failed := s.plan(st, batch, now)
		if failed {
			// A report that cannot be rated has its answer and left st
			// changed in part: the rest start again from the store.
			batch = plan.ok
			continue
		}
		if len(plan.ok) == 0 {
			return nil
		}
		rows, err := st.rows(now, s.jsonRows)
		if err != nil {
			finishAll(plan.ok, s.storeError(err))
			return nil
		}
		return &writeJob{plan: plan, rows: rows, attempt: attempt, gen: s.known.begin(rows)}
	}
	return nil
}

// write stores a prepared batch and answers its reports. A guarded row
// another writer changed meanwhile (another server, another service over the
// same store) makes the store refuse the batch, and it is read and worked
// out again; a match another writer rated meanwhile gets that result.
func (s *Service) write(ctx context.Context, w *writeJob) {
	for w != nil {
		plan := w.plan
		err := s.store.SaveResults(ctx, plan.results, w.rows, plan.history)
		s.known.done(w.gen, w.rows, err == nil)
		var again []*request
		switch {
		case err == nil:
			for i, q := range plan.ok {
				s.rated(q, plan.applied[i])
			}
		case rowsChanged(err) && w.attempt < maxAttempts:
			for _, q := range plan.ok {
				s.metrics.retries.WithLabelValues(q.rating.Name).Inc()
			}
			again = plan.ok
			w.attempt++
		case rowsChanged(err):
			finishAll(plan.ok, cupid.Errorf(cupid.CodeUnavailable, "", "the players' ratings kept changing under this result; try again"))
		case cupid.ErrorCode(err) == cupid.CodeConflict:
			// Another writer stored a result of one of these matches.
			if again = s.answerRated(ctx, plan.ok); len(again) == len(plan.ok) {
				finishAll(again, s.storeError(err))
				again = nil
			}
		default:
			finishAll(plan.ok, s.storeError(err))
		}
		if len(again) == 0 {
			return
		}
		w = s.prepare(ctx, again, w.attempt)
	}
}

// batchPlan is what a batch writes, with the reports it holds.
type batchPlan struct {
	ok      []*request
	applied []*applied
	results []cupid.ResultRecord
	history []cupid.RatingEntry
}

// plan works every report of the batch out in turn, then encodes what
// they write. failed reports that one could not be, and was answered: st
// is then not to be written.
func (s *Service) plan(st *state, batch []*request, now time.Time) (p batchPlan, failed bool) {
	for _, q := range batch {
		a, err := q.rating.apply(st, q.match.ID, q.units, q.sides, now)
		if err != nil { // st is unchanged: the others go on
			q.finish(nil, false, err)
			continue
		}
		p.ok = append(p.ok, q)
		p.applied = append(p.applied, a)
	}
	p.results = make([]cupid.ResultRecord, len(p.ok))
	errs := make([]error, len(p.ok))
	inParallel(len(p.ok), func(i int) {
		p.results[i], errs[i] = encode(p.ok[i], p.applied[i], now, s.jsonRows)
	})
	for i, err := range errs {
		if err != nil {
			p.ok[i].finish(nil, false, err)
			return batchPlan{ok: slices.Delete(p.ok, i, i+1)}, true
		}
	}
	for _, a := range p.applied {
		p.history = append(p.history, a.history...)
	}
	return p, false
}

// encode gives a planned result its bodies: each player's history line
// in the binary form (codec.go), or as JSON with jsonRows, and the stored result as JSON, the form
// retention exports, written by hand (resultjson.go).
func encode(q *request, a *applied, now time.Time, jsonRows bool) (cupid.ResultRecord, error) {
	for i := range a.outcome.Players {
		ch := &a.outcome.Players[i]
		var line []byte
		var err error
		if jsonRows {
			line, err = json.Marshal(ch)
		} else {
			line, err = encodeChange(ch)
		}
		if err != nil {
			return cupid.ResultRecord{}, fmt.Errorf("ratingsvc: encode the change of %s: %w", ch.Player, err)
		}
		a.history[i].Body = line
	}
	body, err := appendResultJSON(make([]byte, 0, 256+300*len(a.outcome.Players)), q.digest, q.reportJSON, &a.outcome)
	if err != nil {
		return cupid.ResultRecord{}, fmt.Errorf("ratingsvc: encode the result of %s: %w", q.match.ID, err)
	}
	return cupid.ResultRecord{MatchID: q.match.ID, At: now, Body: body}, nil
}

// rated answers a report the batch stored, and counts it.
func (s *Service) rated(q *request, a *applied) {
	name := q.rating.Name
	s.metrics.results.WithLabelValues(name, "rated").Inc()
	s.metrics.updates.WithLabelValues(name).Add(float64(len(a.outcome.Players)))
	for flag, n := range a.raised {
		s.metrics.flags.WithLabelValues(name, flag).Add(float64(n))
	}
	q.finish(&a.outcome, false, nil)
}

// answerRated answers the reports whose match has a stored result (as a
// repeat or a refusal) and returns the others.
func (s *Service) answerRated(ctx context.Context, batch []*request) []*request {
	var rest []*request
	for _, q := range batch {
		prev, err := s.store.Result(ctx, q.match.ID)
		switch {
		case err == nil:
			q.finish(s.repeat(prev, q.report, q.digest))
		case cupid.ErrorCode(err) == cupid.CodeNotFound:
			rest = append(rest, q)
		default:
			q.finish(nil, false, s.storeError(err))
		}
	}
	return rest
}

func finishAll(batch []*request, err error) {
	for _, q := range batch {
		q.finish(nil, false, err)
	}
}
