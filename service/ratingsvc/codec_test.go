package ratingsvc

import (
	"context"

	"encoding/json"
	"log/slog"
	"math"
	"reflect"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"

	"github.com/cupid-match/cupid/rating"
)

var codecT0 = time.Date(2026, 3, 1, 12, 30, 0, 123456789, time.UTC)

func TestStateBinaryRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name string
		p    PlayerRating
	}{
		{"new OpenSkill player", PlayerRating{Rating: "ranked", Player: "alice", Skill: &rating.Skill{Mu: 25, Sigma: 25.0 / 3}, Value: 0}},
		{"OpenSkill with games and flags", PlayerRating{Rating: "ranked-5v5", Player: "bob", Skill: &rating.Skill{Mu: 27.123456789012345, Sigma: 7.9}, Value: 3.42,
			League: "gold", Division: 3, Games: 120, Wins: 61, Losses: 58, Draws: 1, Leaves: 2, Day: "2026-03-01", LossesToday: 4,
			Recent: recentGames{o(0.8129, 1), o(0.5, 0.5), o(0.1235, 0), o(0.4, 0.25)},
			Flags:  rating.Flags{Tanking: true, Ease: 1.5, Why: []string{"lost 5 in a row", "tanking"}}, UpdatedAt: codecT0}},
		{"Glicko-2 in a rating period", PlayerRating{Rating: "duel", Player: "carol", Glicko: &rating.Glicko2{R: 1612.5, RD: 80.25, Sigma: 0.0599},
			Value: 1452, Flags: rating.Flags{Smurf: true}, PeriodStart: codecT0.Truncate(time.Hour), UpdatedAt: codecT0,
			Pending: []rating.Game{{Opponent: rating.Glicko2{R: 1500, RD: 350, Sigma: 0.06}, Score: 1}, {Opponent: rating.NewGlicko2(), Score: 0.5}}}},
		{"negative division and values", PlayerRating{Rating: "r", Player: "", Skill: &rating.Skill{Mu: -3, Sigma: 1}, Value: -6, Division: -1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := encodeState(&c.p)
			if err != nil {
				t.Fatal(err)
			}
			if b[0] != binaryV1 {
				t.Fatalf("first byte %#x, want the version %#x", b[0], binaryV1)
			}
			var got PlayerRating
			if err := decodeState(b, &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.p) {
				t.Errorf("decoded\n%+v\nwant\n%+v", got, c.p)
			}
			j, _ := json.Marshal(c.p)
			if len(b) >= len(j)/2 {
				t.Errorf("binary %d bytes against JSON's %d: want less than half", len(b), len(j))
			}
		})
	}
}

// A state stored as JSON before the binary form reads as it did.
func TestStateReadsItsJSONForm(t *testing.T) {
	want := PlayerRating{Rating: "ranked", Player: "alice", Skill: &rating.Skill{Mu: 26, Sigma: 8}, Value: 2, Games: 3, Wins: 2, Losses: 1,
		Day: "2026-03-01", Recent: recentGames{o(0.5, 1), o(0.6, 0)}, UpdatedAt: codecT0}
	for _, body := range []string{
		`{"rating":"ranked","player":"alice","skill":{"Mu":26,"Sigma":8},"value":2,"division":0,"games":3,"wins":2,"losses":1,"draws":0,"leaves":0,"day":"2026-03-01","losses_today":0,"recent":[[0.5,1],[0.6,0]],"flags":{},"updated_at":"2026-03-01T12:30:00.123456789Z"}`,
		` {"rating":"ranked","player":"alice","skill":{"Mu":26,"Sigma":8},"value":2,"games":3,"wins":2,"losses":1,"day":"2026-03-01","recent":[{"Expected":0.5,"Score":1},{"Expected":0.6,"Score":0}],"flags":{},"updated_at":"2026-03-01T12:30:00.123456789Z"}`,
	} {
		var got PlayerRating
		if err := decodeState([]byte(body), &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("decoded %s\nas %+v\nwant %+v", body, got, want)
		}
	}
}

func TestStateBinaryRefusesWhatItCannotHold(t *testing.T) {
	for _, c := range []struct {
		name string
		p    PlayerRating
	}{
		{"NaN expected score", PlayerRating{Skill: &rating.Skill{}, Recent: recentGames{o(math.NaN(), 1)}}},
		{"infinite score", PlayerRating{Skill: &rating.Skill{}, Recent: recentGames{o(0.5, math.Inf(1))}}},
		{"a time out of range", PlayerRating{Skill: &rating.Skill{}, UpdatedAt: time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)}},
	} {
		if _, err := encodeState(&c.p); err == nil {
			t.Errorf("%s: encoded, want an error", c.name)
		}
	}
}

// A damaged binary body is an error, never a panic or a huge allocation.
func TestBinaryBodiesCutShortAreErrors(t *testing.T) {
	p := PlayerRating{Rating: "ranked", Player: "bob", Skill: &rating.Skill{Mu: 25, Sigma: 8}, Recent: recentGames{o(0.5, 1)},
		Flags: rating.Flags{Why: []string{"x"}}, UpdatedAt: codecT0}
	state, err := encodeState(&p)
	if err != nil {
		t.Fatal(err)
	}
	line, err := encodeChange(&PlayerChange{Player: "bob", Skill: &rating.Skill{Mu: 25, Sigma: 8}, LeagueAfter: "gold"})
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n < len(state); n++ {
		if err := decodeState(state[:n], &PlayerRating{}); err == nil {
			t.Errorf("state cut to %d of %d bytes decoded", n, len(state))
		}
	}
	for n := 1; n < len(line); n++ {
		if err := decodeChange(line[:n], "bob", &PlayerChange{}); err == nil {
			t.Errorf("line cut to %d of %d bytes decoded", n, len(line))
		}
	}
	if err := decodeState(append(state, 0), &PlayerRating{}); err == nil {
		t.Error("a state with a byte left over decoded")
	}
	huge := []byte{binaryV1, 0, 0xff, 0xff, 0xff, 0xff, 0x0f}
	if err := decodeState(huge, &PlayerRating{}); err == nil {
		t.Error("a state naming a 4 GB string decoded")
	}
}

func TestChangeBinaryRoundTrip(t *testing.T) {
	for _, c := range []struct {
		name string
		ch   PlayerChange
	}{
		{"OpenSkill win", PlayerChange{Player: "alice", Team: 1, Place: 1, Score: 1, Expected: 0.4871234, Before: 1.25, After: 2.5,
			Skill: &rating.Skill{Mu: 26.1, Sigma: 8.01}, DivisionBefore: 0, DivisionAfter: 0}},
		{"leaver with league and flags", PlayerChange{Player: "bob", Team: 0, Place: 2, Score: 0, Expected: 0.6, Leaver: true, Before: 10, After: 8,
			Skill: &rating.Skill{Mu: 20, Sigma: 5}, LeagueBefore: "gold", LeagueAfter: "silver", DivisionBefore: 2, DivisionAfter: 1,
			Flags: rating.Flags{Tanking: true, Smurf: true, Ease: 2, Why: []string{"left", "lost"}}}},
		{"Glicko-2 pending", PlayerChange{Player: "carol", Place: 1, Score: 0.5, Expected: 0.5, Before: 1400, After: 1400, Pending: 3,
			Glicko: &rating.Glicko2{R: 1500, RD: 200, Sigma: 0.06}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := encodeChange(&c.ch)
			if err != nil {
				t.Fatal(err)
			}
			var got PlayerChange
			if err := decodeChange(b, c.ch.Player, &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.ch) {
				t.Errorf("decoded\n%+v\nwant\n%+v", got, c.ch)
			}
			// A line stored as JSON before reads the same.
			j, _ := json.Marshal(c.ch)
			var old PlayerChange
			if err := decodeChange(j, c.ch.Player, &old); err != nil || !reflect.DeepEqual(old, c.ch) {
				t.Errorf("JSON line decoded as %+v (%v), want %+v", old, err, c.ch)
			}
			if len(b) >= len(j)/2 {
				t.Errorf("binary %d bytes against JSON's %d: want less than half", len(b), len(j))
			}
		})
	}
	if _, err := encodeChange(&PlayerChange{Player: "x", After: math.NaN()}); err == nil {
		t.Error("a NaN value encoded")
	}
}

// A store written by the code before the binary form (players' states and
// history lines as JSON) goes on working: the states are read, rated and
// rewritten in the binary form, guarded by their JSON bodies, and the
// history reads its old and new lines alike.
func TestStoreWithJSONRowsGoesOn(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, ranked, rankedQueue)
	alice := PlayerRating{Rating: "ranked", Player: "alice", Skill: &rating.Skill{Mu: 30, Sigma: 6}, Games: 1, Wins: 1,
		Recent: recentGames{o(0.5, 1)}, UpdatedAt: t0}
	alice.Value = alice.conservative(3)
	state, _ := json.Marshal(alice)
	oldLine, _ := json.Marshal(PlayerChange{Player: "alice", Place: 1, Score: 1, Expected: 0.5, Before: 0, After: alice.Value, Skill: alice.Skill})
	if err := f.store.SaveResult(ctx, cupid.ResultRecord{MatchID: "m0", At: t0, Body: []byte(`{}`)},
		[]cupid.RatingRow{{Kind: kindPlayer, ID: "ranked/alice", Body: state}},
		[]cupid.RatingEntry{{Rating: "ranked", Player: "alice", MatchID: "m0", At: t0, Body: oldLine}}); err != nil {
		t.Fatal(err)
	}
	if got := f.rating(t, "alice"); got.Games != 1 || !eq(got.Skill.Mu, 30) {
		t.Fatalf("the JSON state read as %+v", got)
	}
	out := f.play(t, "duel", []int{1, 2}, []string{"alice"}, []string{"bob"})
	if got := f.rating(t, "alice"); got.Games != 2 || got.Wins != 2 || !eq(got.Value, out.Players[0].After) || len(got.Recent) != 2 {
		t.Fatalf("after a game: %+v", got)
	}
	rows, err := f.store.RatingRows(ctx, kindPlayer, []string{"ranked/alice"})
	if err != nil || len(rows) != 1 || rows[0].Body[0] != binaryV1 {
		t.Fatalf("the state was not rewritten in the binary form: %v %v", err, rows)
	}
	h, err := f.svc.History(ctx, "ranked", "alice", 0, 0)
	if err != nil || len(h) != 2 {
		t.Fatalf("history %+v, %v", h, err)
	}
	if h[0].MatchID != "m1" || !reflect.DeepEqual(h[0].Change, out.Players[0]) || h[1].MatchID != "m0" || !eq(h[1].Change.After, alice.Value) {
		t.Errorf("history %+v\nwant the new line %+v first, then the old one", h, out.Players[0])
	}
}

// TestJSONRowsWritesWhatTheReleaseBeforeReads: on a shared store (JSONRows)
// states and history lines are written as JSON, which the code before the
// binary form decoded with encoding/json, and the service reads them back.
func TestJSONRowsWritesWhatTheReleaseBeforeReads(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, ranked, rankedQueue)
	svc, err := New(Options{Store: f.store, Matches: f.matches, Ratings: ranked, Queues: rankedQueue, Now: f.clock.Now,
		Logger: slog.New(slog.DiscardHandler), JSONRows: true})
	if err != nil {
		t.Fatal(err)
	}
	f.svc = svc
	out := f.play(t, "duel", []int{1, 2}, []string{"alice"}, []string{"bob"})
	rows, err := f.store.RatingRows(ctx, kindPlayer, []string{"ranked/alice"})
	if err != nil || len(rows) != 1 {
		t.Fatalf("rows %v, %v", rows, err)
	}
	var old PlayerRating
	if err := json.Unmarshal(rows[0].Body, &old); err != nil || old.Games != 1 || !eq(old.Value, out.Players[0].After) {
		t.Fatalf("the state %q is not the JSON the release before reads: %+v, %v", rows[0].Body, old, err)
	}
	lines, err := f.store.RatingHistory(ctx, "ranked", "alice", 0, 10)
	if err != nil || len(lines) != 1 {
		t.Fatalf("history %v, %v", lines, err)
	}
	var ch PlayerChange
	if err := json.Unmarshal(lines[0].Body, &ch); err != nil || !eq(ch.After, out.Players[0].After) {
		t.Fatalf("the history line %q is not JSON: %+v, %v", lines[0].Body, ch, err)
	}
	f.play(t, "duel", []int{1, 2}, []string{"alice"}, []string{"bob"})
	if got := f.rating(t, "alice"); got.Games != 2 || got.Wins != 2 {
		t.Fatalf("after a second game: %+v", got)
	}
}

// FuzzDecodeBodies: whatever bytes a stored state or history line holds
// (a corrupt row, a body another program wrote), decoding returns an error
// or a value, never panics or allocates beyond the body's size. `go test`
// runs the seeds; `go test -fuzz FuzzDecodeBodies ./service/ratingsvc`
// searches further.
func FuzzDecodeBodies(f *testing.F) {
	p := PlayerRating{Rating: "ranked", Player: "bob", Skill: &rating.Skill{Mu: 27, Sigma: 7.9}, Value: 3.4, Games: 3,
		Recent: recentGames{o(0.8, 1), o(0.5, 0.5)}, Flags: rating.Flags{Why: []string{"tanking"}}, UpdatedAt: codecT0}
	state, err := encodeState(&p)
	if err != nil {
		f.Fatal(err)
	}
	line, err := encodeChange(&PlayerChange{Player: "bob", Place: 1, Score: 1, Expected: 0.5, After: 3.4, Skill: p.Skill})
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range [][]byte{state, line, state[:len(state)/2], {binaryV1}, {binaryV1, 0xff, 0xff, 0xff, 0xff, 0x0f}, []byte(`{"Games":1}`), nil} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var got PlayerRating
		_ = decodeState(body, &got)
		var ch PlayerChange
		_ = decodeChange(body, "bob", &ch)
	})
}
