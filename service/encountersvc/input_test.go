package encountersvc

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/encounter"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/memstore"
)

// TestNewRefusesBadOptions: a service that could not do its job is not
// built, and the error says what is wrong.
func TestNewRefusesBadOptions(t *testing.T) {
	st := memstore.New()
	watch := newLog().watch
	cases := []struct {
		name string
		o    Options
		want string // in the error
	}{
		{"no store", Options{}, "no store"},
		{"a window without recent", Options{Store: st, Window: encounter.Window{Horizon: time.Hour}}, "recent"},
		{"a window too long", Options{Store: st, Window: encounter.Window{Recent: 5, Horizon: encounter.MaxHorizon + time.Hour}}, "horizon"},
		{"queues to follow, no watch", Options{Store: st, Follow: []string{"duel"}}, "no way to watch"},
		{"a negative rematch window", Options{Store: st, RematchWindow: -time.Second}, "rematch window"},
		{"a rematch window too long", Options{Store: st, RematchWindow: encounter.MaxRematchWindow + time.Second}, "rematch window"},
		{"a reason with no threshold", Options{Store: st, Reports: encounter.ReportRules{Thresholds: map[string]int{"cheating": 0}, Within: time.Hour}}, "reasons.cheating"},
		{"reports with no window", Options{Store: st, Reports: encounter.ReportRules{Thresholds: map[string]int{"cheating": 1}}}, "within"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New = %v, %v; want an error about %s", s, err, tc.want)
			}
		})
	}
	// The defaults: the window when none is given, one given kept.
	s, err := New(Options{Store: st, Follow: []string{"duel"}, Watch: watch})
	if err != nil || s.Window() != encounter.DefaultWindow {
		t.Fatalf("no window given: %v, %+v", err, s.Window())
	}
	w := encounter.Window{Recent: 3, Horizon: time.Hour}
	if s, err := New(Options{Store: st, Window: w}); err != nil || s.Window() != w {
		t.Fatalf("a window given: %v", err)
	}
}

// TestBadInputNamesTheField: every call refuses a bad id or kind naming
// the field, before it reads or writes anything (the store fails every
// call, so a call that reached it would say "unavailable").
func TestBadInputNamesTheField(t *testing.T) {
	ctx := context.Background()
	long := strings.Repeat("x", cupid.MaxIDLength+1)
	r := newFaultRig(t)
	for _, op := range []string{"AddEncounters", "Encounters", "PutListEntry", "DeleteListEntry", "ListEntries", "EraseEncounters"} {
		r.st.failTimes(op, errDown, -1)
	}
	s := r.svc
	cases := []struct {
		name, field string
		call        func() error
	}{
		{"Put without a player", "player_id", func() error { _, err := s.Put(ctx, "", encounter.KindBlock, "b", 0); return err }},
		{"List without a player", "player_id", func() error { _, err := s.List(ctx, "", ""); return err }},
		{"List of a kind unknown", "kind", func() error { _, err := s.List(ctx, "a", "mute"); return err }},
		{"Erase without a player", "player_id", func() error { return s.Erase(ctx, "") }},
		{"Erase of an id too long", "player_id", func() error { return s.Erase(ctx, long) }},
		{"History of an id not UTF-8", "player_id", func() error { _, err := s.History(ctx, "\xff", 0); return err }},
		{"Record of a mode unknown", "mode", func() error {
			return s.Record(ctx, encounter.Meeting{Mode: "chess", Place: "p", Ref: "r", At: t0, Teams: [][]string{{"a"}, {"b"}}})
		}},
		{"Record of a player twice", "teams[1][0]", func() error {
			return s.Record(ctx, encounter.Meeting{Mode: encounter.ModeQueue, Place: "p", Ref: "r", At: t0, Teams: [][]string{{"a"}, {"a"}}})
		}},
		{"RecordMeetings with one bad", "ref", func() error {
			return s.RecordMeetings(ctx, []encounter.Meeting{
				{Mode: encounter.ModePairing, Place: "ev", Ref: "ev/1", At: t0, Teams: [][]string{{"a", "b"}}},
				{Mode: encounter.ModePairing, Place: "ev", At: t0, Teams: [][]string{{"c", "d"}}},
			})
		}},
		{"Barred without a participant", "participant", func() error { _, err := s.Barred(ctx, "", "fridays", 0); return err }},
		{"RequestRematch without a player", "player_id", func() error { _, err := s.RequestRematch(ctx, "", "c", "m1"); return err }},
		{"AnswerRematch without a player", "player_id", func() error { _, err := s.AnswerRematch(ctx, "", "id.", true); return err }},
		{"AnswerRematch without a rematch", "rematch_id", func() error { _, err := s.AnswerRematch(ctx, "a", "", true); return err }},
		{"ReportPlayer without a reporter", "player_id", func() error { _, err := s.ReportPlayer(ctx, "", "c", "m1", "cheating", ""); return err }},
		{"Reports without a player", "player_id", func() error { _, err := s.Reports(ctx, ""); return err }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			if cupid.ErrorCode(err) != cupid.CodeInvalid || err.(*cupid.Error).Field != tc.field {
				t.Fatalf("%v, want invalid naming %s", err, tc.field)
			}
		})
	}
}

// TestRecordMeetings: a round's meetings are stored in one write, all or
// nothing; a meeting of one player makes no encounter and writes nothing.
func TestRecordMeetings(t *testing.T) {
	ctx := context.Background()
	r := newFaultRig(t)
	round := []encounter.Meeting{
		{Mode: encounter.ModePairing, Place: "fridays", Ref: "w2/1", At: t0, Teams: [][]string{{"f", "g"}}},
		{Mode: encounter.ModePairing, Place: "fridays", Ref: "w2/1", At: t0, Teams: [][]string{{"h", "i", "j"}}},
	}
	bad := append(slices.Clone(round), encounter.Meeting{Mode: encounter.ModePairing, Place: "fridays", Ref: "w2/1", At: t0, Teams: [][]string{{"k", "k"}}})
	if err := r.svc.RecordMeetings(ctx, bad); cupid.ErrorCode(err) != cupid.CodeInvalid {
		t.Fatalf("a round with a bad meeting: %v", err)
	}
	historyIs("f")(t, r)
	if err := r.svc.RecordMeetings(ctx, round); err != nil {
		t.Fatal(err)
	}
	historyIs("f", "g/opponent")(t, r)
	historyIs("h", "i/opponent", "j/opponent")(t, r)
	// Nothing to record writes nothing: the store would refuse it.
	r.st.failTimes("AddEncounters", errDown, -1)
	alone := encounter.Meeting{Mode: encounter.ModePairing, Place: "fridays", Ref: "w2/2", At: t0, Teams: [][]string{{"f"}}}
	if err := r.svc.RecordMeetings(ctx, nil); err != nil {
		t.Errorf("no meetings: %v", err)
	}
	if err := r.svc.RecordMeetings(ctx, []encounter.Meeting{alone}); err != nil {
		t.Errorf("a round of one alone: %v", err)
	}
	if err := r.svc.Record(ctx, alone); err != nil {
		t.Errorf("a meeting of one: %v", err)
	}
}

// TestBarred: a participant's barred list is his own blocks, then the
// people he met earlier in the series (most recent first), each once; not
// who blocked him, nor whom he met elsewhere, in another mode or before
// the history's horizon.
func TestBarred(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	c := testclock.At(t0)
	s, err := New(Options{Store: st, Now: c.Now, Window: encounter.Window{Recent: 50, Horizon: 30 * 24 * time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct{ player, other string }{{"p", "q"}, {"p", "w"}, {"r", "p"}} {
		if _, err := s.Put(ctx, p.player, encounter.KindBlock, p.other, 0); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Put(ctx, "p", encounter.KindAvoid, "v", 0); err != nil {
		t.Fatal(err)
	}
	day := 24 * time.Hour
	for _, m := range []encounter.Meeting{
		{Mode: encounter.ModePairing, Place: "fridays", Ref: "w1/1", At: t0.Add(-14 * day), Teams: [][]string{{"p", "s"}}},
		{Mode: encounter.ModePairing, Place: "fridays", Ref: "w2/1", At: t0.Add(-7 * day), Teams: [][]string{{"p", "w"}}},
		{Mode: encounter.ModePairing, Place: "fridays", Ref: "w2/2", At: t0.Add(-7*day + time.Minute), Teams: [][]string{{"p", "x", "y"}}},
		{Mode: encounter.ModePairing, Place: "fridays", Ref: "w0/1", At: t0.Add(-40 * day), Teams: [][]string{{"p", "old"}}},
		{Mode: encounter.ModePairing, Place: "saturdays", Ref: "s1/1", At: t0.Add(-day), Teams: [][]string{{"p", "sat"}}},
		{Mode: encounter.ModeQueue, Place: "fridays", Ref: "m1", At: t0.Add(-day), Teams: [][]string{{"p"}, {"duel"}}},
	} {
		if err := s.Record(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		series string
		limit  int
		want   []string
	}{
		{"", 0, []string{"q", "w"}},
		{"fridays", 0, []string{"q", "w", "x", "y", "s"}},
		{"fridays", 3, []string{"q", "w", "x"}},
		{"fridays", 1, []string{"q"}},
		{"saturdays", 0, []string{"q", "w", "sat"}},
		{"sundays", 0, []string{"q", "w"}},
	}
	for _, tc := range cases {
		got, err := s.Barred(ctx, "p", tc.series, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Barred(p, %q, %d) = %v, want %v", tc.series, tc.limit, got, tc.want)
		}
	}
	// r blocked p: p's list does not say so, r's own does.
	if got, _ := s.Barred(ctx, "r", "", 0); !slices.Equal(got, []string{"p"}) {
		t.Errorf("r's barred list: %v", got)
	}
}

// TestExclusionsRevengeAndMet: what an opponent finder reads. An
// attacker's exclusions are those he blocked and, with a window, the
// defenders he attacked at that finder within it; his revenge targets are
// those who attacked him within the time asked.
func TestExclusionsRevengeAndMet(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	c := testclock.At(t0)
	s, err := New(Options{Store: st, Now: c.Now, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, "att", encounter.KindBlock, "x", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, "y", encounter.KindBlock, "att", 0); err != nil {
		t.Fatal(err)
	}
	attack := func(ref, place, attacker, defender string, ago time.Duration) encounter.Meeting {
		return encounter.Meeting{Mode: encounter.ModeOpponent, Place: place, Ref: ref, At: t0.Add(-ago), Teams: [][]string{{attacker}, {defender}}}
	}
	for _, m := range []encounter.Meeting{
		attack("r1", "raids", "att", "d1", 2*time.Hour),
		attack("r2", "raids", "att", "d2", 20*time.Hour),
		attack("r3", "duels", "att", "d3", time.Hour),
		attack("r4", "raids", "e1", "att", time.Hour),
		attack("r5", "raids", "e2", "att", 13*time.Hour),
		attack("r6", "raids", "att", "d1", 3*time.Hour),
	} {
		if err := s.Record(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	excl := []struct {
		place  string
		within time.Duration
		want   []string
	}{
		{"raids", 0, []string{"x"}},
		{"raids", 12 * time.Hour, []string{"x", "d1"}},
		{"raids", 24 * time.Hour, []string{"x", "d1", "d2"}},
		{"duels", 12 * time.Hour, []string{"x", "d3"}},
	}
	for _, tc := range excl {
		got, err := s.Exclusions(ctx, "att", tc.place, tc.within)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Exclusions(att, %s, %s) = %v, want %v", tc.place, tc.within, got, tc.want)
		}
	}
	revenge := []struct {
		within time.Duration
		limit  int
		want   []string
	}{
		{12 * time.Hour, 0, []string{"e1"}},
		{24 * time.Hour, 0, []string{"e1", "e2"}},
		{24 * time.Hour, 1, []string{"e1"}},
	}
	for _, tc := range revenge {
		got, err := s.Revenge(ctx, "att", tc.within, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Revenge(att, %s, %d) = %v, want %v", tc.within, tc.limit, got, tc.want)
		}
	}
	met := []struct {
		other string
		q     encounter.Query
		want  bool
	}{
		{"d1", encounter.Query{Side: encounter.SideAttacker}, true},
		{"d1", encounter.Query{Side: encounter.SideDefender}, false},
		{"d2", encounter.Query{Within: 12 * time.Hour}, false},
		{"d3", encounter.Query{Place: "raids"}, false},
		{"e2", encounter.Query{Mode: encounter.ModeOpponent}, true},
		{"x", encounter.Query{}, false},
	}
	for _, tc := range met {
		got, err := s.Met(ctx, "att", tc.other, tc.q)
		if err != nil {
			t.Fatal(err)
		}
		if got != tc.want {
			t.Errorf("Met(att, %s, %+v) = %v, want %v", tc.other, tc.q, got, tc.want)
		}
	}
}
