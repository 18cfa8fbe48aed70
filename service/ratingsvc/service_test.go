package ratingsvc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/rating"
)

var t0 = time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)

// fakeMatches is a MatchReader over matches a test makes up.
type fakeMatches struct {
	mu sync.Mutex
	m  map[string]*cupid.MatchRecord
}

func (f *fakeMatches) MatchRecord(_ context.Context, id string) (*cupid.MatchRecord, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r, ok := f.m[id]; ok {
		return r, nil
	}
	return nil, cupid.NotFound("id", "no match %s", id)
}

// add makes a match of the queue with the given teams, in state st.
func (f *fakeMatches) add(id, queue string, st cupid.MatchState, teams ...[]string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := &cupid.Match{ID: id, Key: cupid.QueueKey{Queue: queue}}
	for _, t := range teams {
		m.Teams = append(m.Teams, cupid.Team{PlayerIDs: t})
	}
	f.m[id] = &cupid.MatchRecord{Match: m, State: st}
}

func newClock() *testclock.Clock { return testclock.At(t0) }
func eq(a, b float64) bool       { return math.Abs(a-b) < 1e-9 }
func ladder() rating.League {
	return rating.League{Margin: 1, Divisions: []rating.Division{{Name: "bronze"}, {Name: "silver", Min: 5}, {Name: "gold", Min: 15}}}
}

type fixture struct {
	svc     *Service
	store   *memstore.Store
	matches *fakeMatches
	clock   *testclock.Clock
	n       int
}

func newFixture(t *testing.T, rs []Rating, qs []QueueRating) *fixture {
	t.Helper()
	f := &fixture{store: memstore.New(), matches: &fakeMatches{m: map[string]*cupid.MatchRecord{}}, clock: newClock()}
	t.Cleanup(func() { f.store.Close() })
	f.restart(t, rs, qs)
	return f
}

// restart builds a new service over the same store, as a server restart.
func (f *fixture) restart(t *testing.T, rs []Rating, qs []QueueRating) {
	t.Helper()
	svc, err := New(Options{Store: f.store, Matches: f.matches, Ratings: rs, Queues: qs, Now: f.clock.Now,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	f.svc = svc
}

// play makes an assigned match of the teams and reports team places.
func (f *fixture) play(t *testing.T, queue string, places []int, teams ...[]string) *Outcome {
	t.Helper()
	f.n++
	id := fmt.Sprintf("m%d", f.n)
	f.matches.add(id, queue, cupid.MatchAssigned, teams...)
	out, _, err := f.svc.ReportResult(context.Background(), Report{MatchID: id, TeamPlaces: places})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (f *fixture) rating(t *testing.T, player string) PlayerRating {
	t.Helper()
	v, err := f.svc.GetPlayerRatings(context.Background(), player)
	if err != nil {
		t.Fatal(err)
	}
	return v.Ratings[0]
}

var ranked = []Rating{{Name: "ranked", Model: OpenSkillPL, League: ladder()}}
var rankedQueue = []QueueRating{{Queue: "duel", Rating: "ranked", Attribute: "mmr", DivisionAttribute: "division", LowPriority: "pool"}}

func TestReportRatesTeamsAndIsKept(t *testing.T) {
	f := newFixture(t, ranked, rankedQueue)
	out := f.play(t, "duel", []int{1, 2}, []string{"a", "b"}, []string{"c", "d"})
	if len(out.Players) != 4 || out.Rating != "ranked" {
		t.Fatalf("outcome %+v", out)
	}
	// The reference: two new players against two new players, as rating
	// itself computes it.
	n := rating.WengLin{}.New()
	want, _ := rating.WengLin{}.Rate([][]rating.Skill{{n, n}, {n, n}}, nil)
	for _, c := range []struct {
		id   string
		want rating.Skill
	}{{"a", want[0][0]}, {"d", want[1][1]}} {
		got := f.rating(t, c.id)
		if !eq(got.Skill.Mu, c.want.Mu) || !eq(got.Skill.Sigma, c.want.Sigma) || got.Games != 1 {
			t.Fatalf("%s: %+v, want %+v after one game", c.id, got.Skill, c.want)
		}
		if !eq(got.Value, c.want.Conservative(3)) {
			t.Fatalf("%s: value %v, want μ−3σ %v", c.id, got.Value, c.want.Conservative(3))
		}
	}
	if a, c := f.rating(t, "a"), f.rating(t, "c"); a.Wins != 1 || c.Losses != 1 || a.Value <= c.Value {
		t.Fatalf("winner %+v loser %+v", a, c)
	}
	h, err := f.svc.History(context.Background(), "ranked", "a", 0, 0)
	if err != nil || len(h) != 1 || h[0].MatchID != "m1" || h[0].Change.Place != 1 || h[0].Change.After <= h[0].Change.Before {
		t.Fatalf("history %+v, %v", h, err)
	}
	// A restart reads the same ratings.
	before := f.rating(t, "a")
	f.restart(t, ranked, rankedQueue)
	if after := f.rating(t, "a"); !eq(after.Value, before.Value) || after.Games != 1 {
		t.Fatalf("after restart %+v, before %+v", after, before)
	}
}

func TestReportOnceAndRefusals(t *testing.T) {
	f := newFixture(t, ranked, rankedQueue)
	ctx := context.Background()
	f.matches.add("m", "duel", cupid.MatchAssigned, []string{"a"}, []string{"b"})
	first, rep, err := f.svc.ReportResult(ctx, Report{MatchID: "m", TeamPlaces: []int{2, 1}, Leavers: nil})
	if err != nil || rep {
		t.Fatal(err, rep)
	}
	again, rep, err := f.svc.ReportResult(ctx, Report{MatchID: "m", TeamPlaces: []int{2, 1}, Leavers: []string{}})
	if err != nil || !rep || again.Players[0].After != first.Players[0].After {
		t.Fatalf("the same result again: %+v, %v, %v", again, rep, err)
	}
	if f.rating(t, "a").Games != 1 {
		t.Fatal("a repeated report counted twice")
	}
	f.matches.add("formed", "duel", cupid.MatchFormed, []string{"a"}, []string{"b"})
	f.matches.add("released", "duel", cupid.MatchReleased, []string{"a"}, []string{"b"})
	f.matches.add("casual", "casual", cupid.MatchAssigned, []string{"a"}, []string{"b"})
	for _, c := range []struct {
		name  string
		rep   Report
		code  cupid.Code
		field string
	}{
		{"a different result", Report{MatchID: "m", TeamPlaces: []int{1, 2}}, cupid.CodeConflict, "team_places"},
		{"the same places with scores", Report{MatchID: "m", TeamPlaces: []int{2, 1}, TeamScores: []float64{3, 7}}, cupid.CodeConflict, "team_scores"},
		{"the same places with a leaver", Report{MatchID: "m", TeamPlaces: []int{2, 1}, Leavers: []string{"b"}}, cupid.CodeConflict, "leavers"},
		{"unknown match", Report{MatchID: "nope", TeamPlaces: []int{1, 2}}, cupid.CodeNotFound, "match_id"},
		{"no match id", Report{TeamPlaces: []int{1, 2}}, cupid.CodeInvalid, "match_id"},
		{"formed, not played", Report{MatchID: "formed", TeamPlaces: []int{1, 2}}, cupid.CodeConflict, "match_id"},
		{"released", Report{MatchID: "released", TeamPlaces: []int{1, 2}}, cupid.CodeConflict, "match_id"},
		{"a queue without rating", Report{MatchID: "casual", TeamPlaces: []int{1, 2}}, cupid.CodeConflict, "match_id"},
		{"a leaver not in it", Report{MatchID: "formed", TeamPlaces: []int{1, 2}, Leavers: []string{"zed"}}, cupid.CodeInvalid, "leavers[0]"},
		{"a place for a stranger", Report{MatchID: "formed", PlayerPlaces: map[string]int{"a": 1, "b": 2, "zed": 3}}, cupid.CodeInvalid, "player_places.zed"},
		{"a player without place", Report{MatchID: "formed", PlayerPlaces: map[string]int{"a": 1}}, cupid.CodeInvalid, "player_places.b"},
		{"places for three teams", Report{MatchID: "formed", TeamPlaces: []int{1, 2, 3}}, cupid.CodeInvalid, "team_places"},
		{"no places", Report{MatchID: "formed"}, cupid.CodeInvalid, "team_places"},
		{"a NaN score", Report{MatchID: "formed", TeamScores: []float64{math.NaN(), 1}}, cupid.CodeInvalid, "team_scores[0]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := f.svc.ReportResult(ctx, c.rep)
			var e *cupid.Error
			if !errors.As(err, &e) || e.Code != c.code || e.Field != c.field {
				t.Fatalf("error %v, want %s on %s", err, c.code, c.field)
			}
		})
	}
	if a := f.rating(t, "a"); a.Games != 1 || a.Losses != 1 {
		t.Fatalf("refused reports changed a's rating: %+v", a)
	}
}

func TestFailingStoreChangesNothing(t *testing.T) {
	f := newFixture(t, ranked, rankedQueue)
	ctx := context.Background()
	f.matches.add("m", "duel", cupid.MatchAssigned, []string{"a"}, []string{"b"})
	boom := errors.New("disk full")
	for _, op := range []string{"SaveResults", "RatingRows", "Result"} {
		f.store.FailNext(op, boom)
		_, _, err := f.svc.ReportResult(ctx, Report{MatchID: "m", TeamPlaces: []int{1, 2}})
		if cupid.ErrorCode(err) != cupid.CodeUnavailable || strings.Contains(err.Error(), "disk") {
			t.Fatalf("%s failing: %v, want unavailable without the store's words", op, err)
		}
		if a := f.rating(t, "a"); a.Games != 0 {
			t.Fatalf("%s failing: a's rating changed: %+v", op, a)
		}
		if _, err := f.store.Result(ctx, "m"); cupid.ErrorCode(err) != cupid.CodeNotFound {
			t.Fatalf("%s failing: a result was stored", op)
		}
	}
	if _, rep, err := f.svc.ReportResult(ctx, Report{MatchID: "m", TeamPlaces: []int{1, 2}}); err != nil || rep {
		t.Fatalf("after the store recovered: %v %v", rep, err)
	}
	if a := f.rating(t, "a"); a.Games != 1 {
		t.Fatalf("a after the retry: %+v", a)
	}
}

func TestFreeForAllAndScores(t *testing.T) {
	f := newFixture(t, []Rating{{Name: "br", Model: OpenSkillBT}}, []QueueRating{{Queue: "royale", Rating: "br", Attribute: "mmr"}})
	f.matches.add("m", "royale", cupid.MatchAssigned, []string{"a", "b", "c", "d"})
	out, _, err := f.svc.ReportResult(context.Background(), Report{MatchID: "m", PlayerScores: map[string]float64{"a": 10, "b": 30, "c": 20, "d": 20}})
	if err != nil {
		t.Fatal(err)
	}
	place := map[string]int{}
	after := map[string]float64{}
	for _, p := range out.Players {
		place[p.Player], after[p.Player] = p.Place, p.After
	}
	if place["b"] != 1 || place["c"] != 2 || place["d"] != 2 || place["a"] != 4 {
		t.Fatalf("places from scores %v", place)
	}
	if !(after["b"] > after["c"] && eq(after["c"], after["d"]) && after["d"] > after["a"]) {
		t.Fatalf("ratings after a free-for-all %v", after)
	}
	// One team and team places cannot rate anyone.
	f.matches.add("m2", "royale", cupid.MatchAssigned, []string{"a", "b"})
	if _, _, err := f.svc.ReportResult(context.Background(), Report{MatchID: "m2", TeamPlaces: []int{1}}); cupid.ErrorCode(err) != cupid.CodeInvalid {
		t.Fatalf("one team's place: %v", err)
	}
}

func TestLeaverLosesAndGetsLowPriority(t *testing.T) {
	rs := []Rating{{Name: "ranked", Model: OpenSkillPL, LeaverLowPriorityGames: 2}}
	f := newFixture(t, rs, rankedQueue)
	ctx := context.Background()
	f.matches.add("m", "duel", cupid.MatchAssigned, []string{"a", "b"}, []string{"c", "d"})
	if _, _, err := f.svc.ReportResult(ctx, Report{MatchID: "m", TeamPlaces: []int{1, 2}, Leavers: []string{"b"}}); err != nil {
		t.Fatal(err)
	}
	a, b := f.rating(t, "a"), f.rating(t, "b")
	if a.Wins != 1 || b.Losses != 1 || b.Leaves != 1 || b.Skill.Mu >= 25 || a.Skill.Mu <= 25 {
		t.Fatalf("winner %+v, leaver of the winning team %+v", a, b)
	}
	v, _ := f.svc.GetPlayerRatings(ctx, "b")
	if v.LowPriority == nil || v.LowPriority.Games != 2 || !strings.Contains(v.LowPriority.Reason, "left match m") {
		t.Fatalf("leaver's low priority %+v", v.LowPriority)
	}
	tk := &cupid.Ticket{Key: cupid.QueueKey{Queue: "duel"}, Players: []cupid.Player{{ID: "b"}}}
	if err := f.svc.PrepareTicket(ctx, tk); err != nil || tk.Key.Custom != LowPrioritySuffix {
		t.Fatalf("leaver's ticket key %+v, %v", tk.Key, err)
	}
	// Two more games and the mark is gone.
	f.play(t, "duel", []int{1, 2}, []string{"b"}, []string{"c"})
	f.play(t, "duel", []int{1, 2}, []string{"b"}, []string{"c"})
	if v, _ := f.svc.GetPlayerRatings(ctx, "b"); v.LowPriority != nil {
		t.Fatalf("low priority after its games: %+v", v.LowPriority)
	}
	tk = &cupid.Ticket{Key: cupid.QueueKey{Queue: "duel", Custom: "eu"}, Players: []cupid.Player{{ID: "b"}}}
	if err := f.svc.PrepareTicket(ctx, tk); err != nil || tk.Key.Custom != "eu" {
		t.Fatalf("ticket key after the mark %+v, %v", tk.Key, err)
	}
}

func TestLowPriorityByOperator(t *testing.T) {
	f := newFixture(t, ranked, rankedQueue)
	ctx := context.Background()
	if _, err := f.svc.SetLowPriority(ctx, "a", 0, 0, ""); cupid.ErrorCode(err) != cupid.CodeInvalid {
		t.Fatalf("a mark without end: %v", err)
	}
	if _, err := f.svc.SetLowPriority(ctx, "a", time.Hour, 0, "reported for abuse"); err != nil {
		t.Fatal(err)
	}
	tk := &cupid.Ticket{Key: cupid.QueueKey{Queue: "duel", Custom: "eu"}, Players: []cupid.Player{{ID: "a"}, {ID: "x"}}}
	if err := f.svc.PrepareTicket(ctx, tk); err != nil || tk.Key.Custom != "eu/"+LowPrioritySuffix {
		t.Fatalf("a party with a low-priority player: %+v, %v", tk.Key, err)
	}
	f.clock.Advance(time.Hour)
	tk = &cupid.Ticket{Key: cupid.QueueKey{Queue: "duel"}, Players: []cupid.Player{{ID: "a"}}}
	if err := f.svc.PrepareTicket(ctx, tk); err != nil || tk.Key.Custom != "" {
		t.Fatalf("after the hour: %+v, %v", tk.Key, err)
	}
	f.svc.SetLowPriority(ctx, "a", 0, 5, "")
	if err := f.svc.ClearLowPriority(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if v, _ := f.svc.GetPlayerRatings(ctx, "a"); v.LowPriority != nil {
		t.Fatalf("cleared mark still there: %+v", v.LowPriority)
	}
	f.store.FailNext("PutRatingRows", errors.New("x"))
	if _, err := f.svc.SetLowPriority(ctx, "a", time.Hour, 0, ""); cupid.ErrorCode(err) != cupid.CodeUnavailable {
		t.Fatalf("failing store: %v", err)
	}
	if v, _ := f.svc.GetPlayerRatings(ctx, "a"); v.LowPriority != nil {
		t.Fatalf("a failed mark was kept: %+v", v.LowPriority)
	}
}

func TestPrepareTicketFillsSkillAndRefusesClientSkill(t *testing.T) {
	f := newFixture(t, ranked, rankedQueue)
	ctx := context.Background()
	for range 6 {
		f.play(t, "duel", []int{1, 2}, []string{"strong"}, []string{"weak"})
	}
	tk := &cupid.Ticket{Key: cupid.QueueKey{Queue: "duel"}, Players: []cupid.Player{
		{ID: "strong", Attributes: cupid.NewAttributes(map[string]cupid.Value{"level": cupid.Number(3)})}, {ID: "new"}}}
	if err := f.svc.PrepareTicket(ctx, tk); err != nil {
		t.Fatal(err)
	}
	st := f.rating(t, "strong")
	mmr, _ := tk.Players[0].Attributes.Get("mmr")
	div, _ := tk.Players[0].Attributes.Get("division")
	lvl, _ := tk.Players[0].Attributes.Get("level")
	if !eq(mmr.Number, st.Value) || div.Number != float64(st.Division) || lvl.Number != 3 {
		t.Fatalf("strong's ticket attributes %+v, rating %+v", tk.Players[0].Attributes, st)
	}
	if newMMR, _ := tk.Players[1].Attributes.Get("mmr"); !eq(newMMR.Number, 0) {
		t.Fatalf("a new player's skill %v, want μ−3σ = 0", newMMR.Number)
	}
	for _, attr := range []string{"mmr", "division"} {
		tk := &cupid.Ticket{Key: cupid.QueueKey{Queue: "duel"}, Players: []cupid.Player{{ID: "a"},
			{ID: "b", Attributes: cupid.NewAttributes(map[string]cupid.Value{attr: cupid.Number(3000)})}}}
		err := f.svc.PrepareTicket(ctx, tk)
		var e *cupid.Error
		if !errors.As(err, &e) || e.Code != cupid.CodeInvalid || e.Field != "players[1].attributes."+attr {
			t.Fatalf("a client-sent %s: %v", attr, err)
		}
	}
	other := &cupid.Ticket{Key: cupid.QueueKey{Queue: "casual"}, Players: []cupid.Player{{ID: "a", Attributes: cupid.NewAttributes(map[string]cupid.Value{"mmr": cupid.Number(1)})}}}
	if err := f.svc.PrepareTicket(ctx, other); err != nil {
		t.Fatalf("a queue without rating: %v", err)
	}
}

// TestTankingIsFlaggedAndRaised: a player who loses far more games today
// than his league's players do is flagged, and the flag raises the skill
// his tickets carry.
func TestTankingIsFlaggedAndRaised(t *testing.T) {
	rs := []Rating{{Name: "ranked", Model: OpenSkillPL, FairPlay: rating.FairPlay{TankingMinLosses: 8}, Flagged: FlagAction{Raise: 10, Route: true}}}
	f := newFixture(t, rs, rankedQueue)
	ctx := context.Background()
	// Twenty ordinary players trade wins; one loses every game.
	for i := range 20 {
		f.play(t, "duel", []int{1, 2}, []string{fmt.Sprintf("p%d", i)}, []string{fmt.Sprintf("p%d", (i+1)%20)})
	}
	for i := range 9 {
		f.play(t, "duel", []int{1, 2}, []string{fmt.Sprintf("p%d", i)}, []string{"tank"})
	}
	tank := f.rating(t, "tank")
	if !tank.Flags.Tanking || len(tank.Flags.Why) == 0 {
		t.Fatalf("tank after 9 losses: %+v", tank.Flags)
	}
	if p := f.rating(t, "p3"); p.Flags.Tanking {
		t.Fatalf("an ordinary player flagged: %+v", p.Flags)
	}
	tk := &cupid.Ticket{Key: cupid.QueueKey{Queue: "duel"}, Players: []cupid.Player{{ID: "tank"}}}
	if err := f.svc.PrepareTicket(ctx, tk); err != nil {
		t.Fatal(err)
	}
	mmr, _ := tk.Players[0].Attributes.Get("mmr")
	if !eq(mmr.Number, tank.Value+10) || tk.Key.Custom != FlaggedSuffix {
		t.Fatalf("flagged ticket mmr %v (value %v), key %+v", mmr.Number, tank.Value, tk.Key)
	}
	// A new day: the next game clears the flag.
	f.clock.Advance(24 * time.Hour)
	f.play(t, "duel", []int{1, 2}, []string{"tank"}, []string{"p1"})
	if tank := f.rating(t, "tank"); tank.Flags.Tanking {
		t.Fatalf("still flagged the next day: %+v", tank.Flags)
	}
}

func TestLosingStreakEases(t *testing.T) {
	rs := []Rating{{Name: "ranked", Model: OpenSkillPL, FairPlay: rating.FairPlay{StreakLength: 3, StreakEase: 2, StreakGames: 2}}}
	f := newFixture(t, rs, rankedQueue)
	for range 3 {
		f.play(t, "duel", []int{1, 2}, []string{"w"}, []string{"l"})
	}
	l := f.rating(t, "l")
	if l.Flags.Ease != 2 {
		t.Fatalf("after three losses: %+v", l.Flags)
	}
	tk := &cupid.Ticket{Key: cupid.QueueKey{Queue: "duel"}, Players: []cupid.Player{{ID: "l"}}}
	f.svc.PrepareTicket(context.Background(), tk)
	if mmr, _ := tk.Players[0].Attributes.Get("mmr"); !eq(mmr.Number, l.Value-2) {
		t.Fatalf("eased skill %v, want %v", mmr.Number, l.Value-2)
	}
	f.play(t, "duel", []int{2, 1}, []string{"w"}, []string{"l"})
	if l := f.rating(t, "l"); l.Flags.Ease != 0 {
		t.Fatalf("a win did not end the ease: %+v", l.Flags)
	}
}

func TestLeaguesPromote(t *testing.T) {
	f := newFixture(t, ranked, rankedQueue)
	if a := f.rating(t, "a"); a.League != "bronze" {
		t.Fatalf("a new player's league %q", a.League)
	}
	var last *Outcome
	for i := range 30 {
		last = f.play(t, "duel", []int{1, 2}, []string{"a"}, []string{fmt.Sprintf("x%d", i)})
	}
	a := f.rating(t, "a")
	if a.League == "bronze" || a.Division == 0 || last.Players[0].LeagueAfter != a.League {
		t.Fatalf("after 30 wins: %+v (value %v)", a.League, a.Value)
	}
}

func TestGlickoInstantAndPeriods(t *testing.T) {
	instant := []Rating{{Name: "g", Model: Glicko2}}
	q := []QueueRating{{Queue: "duel", Rating: "g", Attribute: "mmr"}}
	f := newFixture(t, instant, q)
	f.play(t, "duel", []int{1, 2}, []string{"a"}, []string{"b"})
	want, _ := rating.Glicko2Config{}.Period(rating.NewGlicko2(), []rating.Game{{Opponent: rating.NewGlicko2(), Score: 1}})
	if a := f.rating(t, "a"); *a.Glicko != want || !eq(a.Value, want.R-2*want.RD) {
		t.Fatalf("instant: %+v, want %+v", a.Glicko, want)
	}

	periodic := []Rating{{Name: "g", Model: Glicko2, Period: 24 * time.Hour}}
	f = newFixture(t, periodic, q)
	f.play(t, "duel", []int{1, 2}, []string{"a"}, []string{"b"})
	f.play(t, "duel", []int{2, 1}, []string{"a"}, []string{"c"})
	if a := f.rating(t, "a"); a.Glicko.R != 1500 || len(a.Pending) != 2 {
		t.Fatalf("within the period: %+v, %d pending", a.Glicko, len(a.Pending))
	}
	f.clock.Advance(24 * time.Hour)
	want, _ = rating.Glicko2Config{}.Period(rating.NewGlicko2(), []rating.Game{{Opponent: rating.NewGlicko2(), Score: 1}, {Opponent: rating.NewGlicko2(), Score: 0}})
	if a := f.rating(t, "a"); *a.Glicko != want || len(a.Pending) != 0 {
		t.Fatalf("after the period: %+v, want %+v", a.Glicko, want)
	}
}

func TestNewRefusesBadConfiguration(t *testing.T) {
	for _, c := range []struct {
		name string
		rs   []Rating
		qs   []QueueRating
		want string
	}{
		{"unknown model", []Rating{{Name: "r", Model: "elo"}}, nil, "model"},
		{"twice", []Rating{{Name: "r", Model: Glicko2}, {Name: "r", Model: Glicko2}}, nil, "twice"},
		{"bad league", []Rating{{Name: "r", Model: Glicko2, League: rating.League{Divisions: []rating.Division{{Name: "a"}, {Name: "a"}}}}}, nil, "leagues"},
		{"unknown rating", nil, []QueueRating{{Queue: "q", Rating: "r", Attribute: "mmr"}}, "not configured"},
		{"no attribute", []Rating{{Name: "r", Model: Glicko2}}, []QueueRating{{Queue: "q", Rating: "r"}}, "attribute"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := New(Options{Store: memstore.New(), Matches: &fakeMatches{}, Ratings: c.rs, Queues: c.qs})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one about %s", err, c.want)
			}
		})
	}
}

// TestSmurfIsFlagged: a new player who keeps beating players his rating
// says are far stronger is flagged as a smurf, with the reason.
func TestSmurfIsFlagged(t *testing.T) {
	rs := []Rating{{Name: "ranked", Model: OpenSkillPL, FairPlay: rating.FairPlay{SmurfWindow: 10, SmurfExcess: 0.3}, Flagged: FlagAction{Raise: 5}}}
	f := newFixture(t, rs, rankedQueue)
	// Veterans with many games among themselves and against newcomers.
	for i := range 30 {
		f.play(t, "duel", []int{1, 2}, []string{fmt.Sprintf("vet%d", i%5)}, []string{fmt.Sprintf("new%d", i)})
	}
	for i := range 9 {
		f.play(t, "duel", []int{1, 2}, []string{"smurf"}, []string{fmt.Sprintf("vet%d", i%5)})
	}
	if s := f.rating(t, "smurf"); s.Flags.Smurf {
		t.Fatalf("flagged before the window is full: %+v", s.Flags)
	}
	f.play(t, "duel", []int{1, 2}, []string{"smurf"}, []string{"vet0"})
	s := f.rating(t, "smurf")
	if !s.Flags.Smurf || len(s.Flags.Why) == 0 {
		t.Fatalf("ten wins against stronger players: %+v", s.Flags)
	}
	if v := f.rating(t, "vet1"); v.Flags.Smurf {
		t.Fatalf("a veteran flagged: %+v", v.Flags)
	}
	tk := &cupid.Ticket{Key: cupid.QueueKey{Queue: "duel"}, Players: []cupid.Player{{ID: "smurf"}}}
	f.svc.PrepareTicket(context.Background(), tk)
	if mmr, _ := tk.Players[0].Attributes.Get("mmr"); !eq(mmr.Number, s.Value+5) || tk.Key.Custom != "" {
		t.Fatalf("smurf's ticket: mmr %v (value %v), key %+v (route is off)", mmr.Number, s.Value, tk.Key)
	}
}

// TestSessionLeaversAndEndedSessions: a session's players who left while
// it ran are in its result as leavers, named or not, rated with their
// team; a session ended after its assignment may be reported, one ended
// unassigned may not.
func TestSessionLeaversAndEndedSessions(t *testing.T) {
	f := newFixture(t, ranked, rankedQueue)
	ctx := context.Background()
	m := &cupid.Match{ID: "s", Key: cupid.QueueKey{Queue: "duel"}, Teams: []cupid.Team{{PlayerIDs: []string{"a", "new"}}, {PlayerIDs: []string{"c", "d"}}},
		Left: []cupid.Leaver{{PlayerID: "b", Team: 0}}}
	f.matches.mu.Lock()
	f.matches.m["s"] = &cupid.MatchRecord{Match: m, State: cupid.MatchEnded, Assignment: &cupid.Assignment{Server: "x"}}
	f.matches.m["u"] = &cupid.MatchRecord{Match: m, State: cupid.MatchEnded}
	f.matches.mu.Unlock()
	if _, _, err := f.svc.ReportResult(ctx, Report{MatchID: "u", TeamPlaces: []int{1, 2}}); cupid.ErrorCode(err) != cupid.CodeConflict {
		t.Fatalf("a session ended unassigned: %v", err)
	}
	out, _, err := f.svc.ReportResult(ctx, Report{MatchID: "s", TeamPlaces: []int{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Players) != 5 {
		t.Fatalf("%d players rated, want the four who finished and the leaver", len(out.Players))
	}
	b, a := f.rating(t, "b"), f.rating(t, "a")
	if b.Leaves != 1 || b.Losses != 1 || a.Wins != 1 || b.Skill.Mu >= 25 {
		t.Fatalf("leaver %+v, teammate %+v", b, a)
	}
	// Naming him again is the same report.
	if _, rep, err := f.svc.ReportResult(ctx, Report{MatchID: "s", TeamPlaces: []int{1, 2}, Leavers: []string{"b"}}); err != nil || !rep {
		t.Fatalf("the same report naming the session's leaver: %v, %v", rep, err)
	}
}

// TestTwoServersLoseNoUpdate: two servers share a store; one stores a
// result of a player while the other's result of the same player is
// between its reads and its write. The second write finds the player's
// row changed, is worked out again, and both games count.
func TestTwoServersLoseNoUpdate(t *testing.T) {
	f := newFixture(t, ranked, rankedQueue)
	other, err := New(Options{Store: f.store, Matches: f.matches, Ratings: ranked, Queues: rankedQueue, Now: f.clock.Now,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	f.matches.add("m1", "duel", cupid.MatchAssigned, []string{"a"}, []string{"b"})
	f.matches.add("m2", "duel", cupid.MatchAssigned, []string{"a"}, []string{"c"})
	arrived, release := f.store.Block("SaveResults")
	done := make(chan error, 1)
	go func() {
		_, _, err := f.svc.ReportResult(ctx, Report{MatchID: "m1", TeamPlaces: []int{1, 2}})
		done <- err
	}()
	<-arrived // the first server read a's rating and waits to write
	if _, _, err := other.ReportResult(ctx, Report{MatchID: "m2", TeamPlaces: []int{1, 2}}); err != nil {
		t.Fatal(err)
	}
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	a := f.rating(t, "a")
	if a.Games != 2 || a.Wins != 2 {
		t.Fatalf("a after two wins reported on two servers: %+v", a)
	}
	h, _ := f.svc.History(ctx, "ranked", "a", 0, 0)
	if len(h) != 2 || h[1].Change.After != h[0].Change.Before {
		t.Fatalf("history does not chain: %+v", h)
	}
}

// TestLowPriorityWaitHoldsTheTicket: under low_priority: wait a marked
// player's ticket stays in its pool but is held back for the queue's time
// (HeldUntil); an unmarked one is not.
func TestLowPriorityWaitHoldsTheTicket(t *testing.T) {
	waiting := []QueueRating{{Queue: "duel", Rating: "ranked", Attribute: "mmr", LowPriority: "wait", LowPriorityWait: 90 * time.Second}}
	f := newFixture(t, ranked, waiting)
	ctx := context.Background()
	if _, err := f.svc.SetLowPriority(ctx, "a", time.Hour, 0, "reported"); err != nil {
		t.Fatal(err)
	}
	tk := &cupid.Ticket{Key: cupid.QueueKey{Queue: "duel", Custom: "eu"}, Players: []cupid.Player{{ID: "a"}, {ID: "x"}}}
	if err := f.svc.PrepareTicket(ctx, tk); err != nil || tk.Key.Custom != "eu" || !tk.HeldUntil.Equal(f.clock.Now().Add(90*time.Second)) {
		t.Fatalf("a party with a low-priority player: %+v held until %v, %v", tk.Key, tk.HeldUntil, err)
	}
	tk = &cupid.Ticket{Key: cupid.QueueKey{Queue: "duel"}, Players: []cupid.Player{{ID: "x"}}}
	if err := f.svc.PrepareTicket(ctx, tk); err != nil || !tk.HeldUntil.IsZero() {
		t.Fatalf("an unmarked player: held until %v, %v", tk.HeldUntil, err)
	}
	if _, err := New(Options{Store: f.store, Matches: f.matches, Ratings: ranked, Queues: []QueueRating{{Queue: "duel", Rating: "ranked", Attribute: "mmr", LowPriority: "later"}}}); err == nil {
		t.Fatal("an unknown low_priority was accepted")
	}
}

// TestWinnerWhoLeftLosesAndHisOpponentWins: in a one-against-one game
// whose reported winner is also a leaver, the leaver loses rating and his
// opponent gains, in every model (docs/ratings.md, "Leavers").
func TestWinnerWhoLeftLosesAndHisOpponentWins(t *testing.T) {
	for _, m := range []Model{OpenSkillPL, OpenSkillBT, Glicko2} {
		t.Run(string(m), func(t *testing.T) {
			f := newFixture(t, []Rating{{Name: "ranked", Model: m}}, rankedQueue)
			f.matches.add("m", "duel", cupid.MatchAssigned, []string{"a"}, []string{"b"})
			out, _, err := f.svc.ReportResult(context.Background(), Report{MatchID: "m", TeamPlaces: []int{1, 2}, Leavers: []string{"a"}})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range out.Players {
				want := map[string]float64{"a": 0, "b": 1}[p.Player]
				if p.Score != want || (want == 1) != (p.After > p.Before) {
					t.Errorf("%s: score %v, value %.2f → %.2f; want score %v and a %s", p.Player, p.Score, p.Before, p.After, want, map[bool]string{true: "gain", false: "loss"}[want == 1])
				}
			}
			if a, b := f.rating(t, "a"), f.rating(t, "b"); a.Losses != 1 || a.Leaves != 1 || b.Wins != 1 {
				t.Fatalf("leaver: %d losses, %d leaves; opponent: %d wins", a.Losses, a.Leaves, b.Wins)
			}
		})
	}
}
