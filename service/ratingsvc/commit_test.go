package ratingsvc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/cupid-match/cupid/internal/pgtest"

	dto "github.com/prometheus/client_model/go"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/postgres"
	"github.com/cupid-match/cupid/sqlite"
)

// queued waits until n reports wait in the service's group-commit queue.
func queued(s *Service, n int) {
	for {
		s.commitMu.Lock()
		k := len(s.queue)
		s.commitMu.Unlock()
		if k >= n {
			return
		}
		runtime.Gosched()
	}
}

// TestBatchChainsResultsOfOnePlayer: reports that wait while a batch is
// stored are committed together, and a player in several of them is rated
// by each in turn from the one before (his history chains), as if they had
// come one by one. A match reported twice in the queue is rated once; the
// second report gets the first's outcome, or a refusal if it differs.
func TestBatchChainsResultsOfOnePlayer(t *testing.T) {
	f := newFixture(t, ranked, rankedQueue)
	ctx := context.Background()
	for i, opp := range []string{"b", "c", "d", "e"} {
		f.matches.add(fmt.Sprintf("m%d", i+1), "duel", cupid.MatchAssigned, []string{"a"}, []string{opp})
	}
	arrived, release := f.store.Block("SaveResults")
	type answer struct {
		out      *Outcome
		repeated bool
		err      error
	}
	answers := make([]chan answer, 6)
	report := func(k int, rep Report) {
		answers[k] = make(chan answer, 1)
		go func() {
			out, repeated, err := f.svc.ReportResult(ctx, rep)
			answers[k] <- answer{out, repeated, err}
		}()
	}
	report(0, Report{MatchID: "m1", TeamPlaces: []int{1, 2}})
	<-arrived // the first batch, m1 alone, is being stored
	report(1, Report{MatchID: "m2", TeamPlaces: []int{2, 1}})
	queued(f.svc, 1)
	report(2, Report{MatchID: "m3", TeamPlaces: []int{1, 2}})
	queued(f.svc, 2)
	report(3, Report{MatchID: "m2", TeamPlaces: []int{2, 1}}) // the same again
	queued(f.svc, 3)
	report(4, Report{MatchID: "m2", TeamPlaces: []int{1, 2}}) // a different one
	queued(f.svc, 4)
	report(5, Report{MatchID: "m4", TeamPlaces: []int{1, 1}})
	queued(f.svc, 5)
	release()
	var got [6]answer
	for k := range answers {
		got[k] = <-answers[k]
	}
	for _, k := range []int{0, 1, 2, 5} {
		if got[k].err != nil || got[k].repeated {
			t.Fatalf("report %d: %v, repeated %v", k, got[k].err, got[k].repeated)
		}
	}
	if !got[3].repeated || got[3].out.Players[0].After != got[1].out.Players[0].After {
		t.Fatalf("the same report of m2 queued twice: %+v", got[3])
	}
	var e *cupid.Error
	if !errors.As(got[4].err, &e) || e.Code != cupid.CodeConflict || e.Field != "team_places" {
		t.Fatalf("a different report of m2 queued behind it: %v", got[4].err)
	}
	a := f.rating(t, "a")
	if a.Games != 4 || a.Wins != 2 || a.Losses != 1 || a.Draws != 1 {
		t.Fatalf("a after four games, three of them in one batch: %+v games %d", a.Skill, a.Games)
	}
	h, err := f.svc.History(ctx, "ranked", "a", 0, 0)
	if err != nil || len(h) != 4 {
		t.Fatalf("history %d lines, %v", len(h), err)
	}
	for i := 1; i < len(h); i++ { // newest first
		if h[i-1].Change.Before != h[i].Change.After {
			t.Fatalf("history does not chain at %s: before %v, the game before ended at %v", h[i-1].MatchID, h[i-1].Change.Before, h[i].Change.After)
		}
	}
	if want := []string{"m4", "m3", "m2", "m1"}; h[0].MatchID != want[0] || h[1].MatchID != want[1] || h[2].MatchID != want[2] || h[3].MatchID != want[3] {
		t.Fatalf("history order %s %s %s %s, want %v", h[0].MatchID, h[1].MatchID, h[2].MatchID, h[3].MatchID, want)
	}
}

// TestConcurrentReportsThroughTwoServices: two services (two servers)
// over one store, no lock between them, rate many results of a few
// players at once. Every game counts exactly once for each of its players,
// each player's history chains, and his division's day counts every loss:
// the row guards lose no update.
func TestConcurrentReportsThroughTwoServices(t *testing.T) {
	same := func(s cupid.RatingStore) [2]cupid.RatingStore { return [2]cupid.RatingStore{s, s} }
	for _, c := range []struct {
		name    string
		open    func(t *testing.T) [2]cupid.RatingStore
		matches int
	}{
		{"memstore", func(t *testing.T) [2]cupid.RatingStore {
			s := memstore.New()
			t.Cleanup(func() { s.Close() })
			return same(s)
		}, 600},
		{"sqlite", func(t *testing.T) [2]cupid.RatingStore {
			s, err := sqlite.Open(filepath.Join(t.TempDir(), "cupid.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return same(s)
		}, 200},
		// Two servers: two stores, each with its own connections, over
		// one database.
		{"postgres", func(t *testing.T) [2]cupid.RatingStore {
			url := postgresURL(t)
			var out [2]cupid.RatingStore
			for i := range out {
				s, err := postgres.Open(context.Background(), url)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s.Close() })
				out[i] = s
			}
			return out
		}, 200},
	} {
		t.Run(c.name, func(t *testing.T) {
			stores := c.open(t)
			st := stores[0]
			fm := &fakeMatches{m: map[string]*cupid.MatchRecord{}}
			clk := newClock()
			var svcs [2]*Service
			for i := range svcs {
				svc, err := New(Options{Store: stores[i], Matches: fm, Ratings: ranked, Queues: rankedQueue, Now: clk.Now,
					Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
				if err != nil {
					t.Fatal(err)
				}
				svcs[i] = svc
			}
			// Eight players, two against two: every result touches half of
			// them, and the league's day row is everyone's.
			rng := rand.New(rand.NewPCG(1, 2))
			games, losses := map[string]int{}, 0
			for i := range c.matches {
				p := rng.Perm(8)
				var teams [2][]string
				for k, x := range p[:4] {
					teams[k/2] = append(teams[k/2], fmt.Sprintf("p%d", x))
					games[fmt.Sprintf("p%d", x)]++
				}
				fm.add(fmt.Sprintf("m%d", i), "duel", cupid.MatchAssigned, teams[0], teams[1])
				losses += 2
			}
			ctx := context.Background()
			var wg sync.WaitGroup
			errs := make(chan error, c.matches)
			const callers = 16
			for w := range callers {
				wg.Go(func() {
					svc := svcs[w%2]
					for i := w; i < c.matches; i += callers {
						rep := Report{MatchID: fmt.Sprintf("m%d", i), TeamPlaces: []int{1, 2}}
						// A backend retries what the server could not do
						// now; the result is then rated once all the same.
						var err error
						for try := 0; try < 100; try++ {
							if _, _, err = svc.ReportResult(ctx, rep); cupid.ErrorCode(err) != cupid.CodeUnavailable {
								break
							}
						}
						if err != nil {
							errs <- fmt.Errorf("m%d: %w", i, err)
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			// How often a batch met a row the other service had changed
			// (it varies from run to run; the checks below hold whatever it is).
			t.Logf("results worked out again: %v and %v", retries(svcs[0]), retries(svcs[1]))
			for id, n := range games {
				v, err := svcs[0].GetPlayerRatings(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if r := v.Ratings[0]; r.Games != n || r.Wins+r.Losses != n {
					t.Fatalf("%s played %d games, his rating counts %d (%d wins, %d losses)", id, n, r.Games, r.Wins, r.Losses)
				}
				h, err := svcs[1].History(ctx, "ranked", id, 0, 500)
				if err != nil || len(h) != n {
					t.Fatalf("%s: %d history lines for %d games, %v", id, len(h), n, err)
				}
				for i := 1; i < len(h); i++ {
					if h[i-1].Change.Before != h[i].Change.After {
						t.Fatalf("%s: history does not chain at %s", id, h[i-1].MatchID)
					}
				}
			}
			// Players move between divisions; a loss counts in the division
			// he was in, a player once, on his first game of the day.
			var keys []string
			for _, d := range ladder().Divisions {
				keys = append(keys, leagueDayKey("ranked", d.Name, t0.Format("2006-01-02")))
			}
			rows, err := st.RatingRows(ctx, kindLeagueDay, keys)
			if err != nil {
				t.Fatal(err)
			}
			var sum leagueDay
			for _, row := range rows {
				var day leagueDay
				if err := json.Unmarshal(row.Body, &day); err != nil {
					t.Fatal(err)
				}
				sum.Losses += day.Losses
				sum.Players += day.Players
			}
			if sum.Losses != losses || sum.Players != len(games) {
				t.Fatalf("the league's days count %d losses by %d players, want %d by %d", sum.Losses, sum.Players, losses, len(games))
			}
		})
	}
}

// TestRepeatIsTheSameReportInAnyForm: a report is the same report in
// another order or encoding (places as other numbers in the same order,
// places given beside the scores they follow from, leavers in another
// order, a negative zero), also against a result stored before reports
// had a digest; a different one is refused naming the field and values.
func TestRepeatIsTheSameReportInAnyForm(t *testing.T) {
	f := newFixture(t, ranked, rankedQueue)
	ctx := context.Background()
	f.matches.add("m", "duel", cupid.MatchAssigned, []string{"a", "b"}, []string{"c", "d"})
	negZero := 0.0
	negZero = -negZero
	first, _, err := f.svc.ReportResult(ctx, Report{MatchID: "m", TeamScores: []float64{13, negZero}, Leavers: []string{"d", "c"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		rep  Report
	}{
		{"the same", Report{MatchID: "m", TeamScores: []float64{13, negZero}, Leavers: []string{"d", "c"}}},
		{"leavers in another order", Report{MatchID: "m", TeamScores: []float64{13, 0}, Leavers: []string{"c", "d"}}},
		{"with the places the scores give", Report{MatchID: "m", TeamPlaces: []int{1, 2}, TeamScores: []float64{13, 0}, Leavers: []string{"c", "d"}}},
		{"places as other numbers", Report{MatchID: "m", TeamPlaces: []int{0, 7}, TeamScores: []float64{13.0, 0}, Leavers: []string{"d", "c"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, repeated, err := f.svc.ReportResult(ctx, c.rep)
			if err != nil || !repeated || out.Players[0].After != first.Players[0].After {
				t.Fatalf("%v, repeated %v", err, repeated)
			}
		})
	}
	_, _, err = f.svc.ReportResult(ctx, Report{MatchID: "m", TeamScores: []float64{13, 8}, Leavers: []string{"c", "d"}})
	var e *cupid.Error
	if !errors.As(err, &e) || e.Code != cupid.CodeConflict || e.Field != "team_scores" || !strings.Contains(e.Error(), "[13,0]") || !strings.Contains(e.Error(), "[13,8]") {
		t.Fatalf("a different score: %v", err)
	}

	// A result stored before the digest was kept: its report as it was
	// normalised then (places as given).
	old := storedResult{Report: Report{MatchID: "old", TeamPlaces: []int{0, 1}}, Outcome: Outcome{MatchID: "old", Rating: "ranked"}}
	body, _ := json.Marshal(old)
	if err := f.store.SaveResult(ctx, cupid.ResultRecord{MatchID: "old", At: t0, Body: body}, nil, nil); err != nil {
		t.Fatal(err)
	}
	f.matches.add("old", "duel", cupid.MatchAssigned, []string{"a"}, []string{"c"})
	if _, repeated, err := f.svc.ReportResult(ctx, Report{MatchID: "old", TeamPlaces: []int{1, 2}}); err != nil || !repeated {
		t.Fatalf("the same report of a result stored without digest: %v, repeated %v", err, repeated)
	}
	if _, _, err := f.svc.ReportResult(ctx, Report{MatchID: "old", TeamPlaces: []int{2, 1}}); cupid.ErrorCode(err) != cupid.CodeConflict {
		t.Fatalf("a different report of a result stored without digest: %v", err)
	}
}

// postgresURL is a fresh PostgreSQL database for the test (pgtest.URL).
func postgresURL(t *testing.T) string { return pgtest.URL(t, "cupid_ratingsvc") }

// retries is how many results a service worked out again.
func retries(s *Service) float64 {
	var m dto.Metric
	if err := s.metrics.retries.WithLabelValues("ranked").Write(&m); err != nil {
		return -1
	}
	return m.GetCounter().GetValue()
}
