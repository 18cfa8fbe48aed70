package api

import (
	"errors"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	cupid "github.com/cupid-match/cupid"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/opponent"
	"github.com/cupid-match/cupid/pairing"
	"github.com/cupid-match/cupid/service/pairingsvc"
)

// Conversions beyond tickets: enums of matches and opponent results, an
// event's settings read back as they were given, sessions, notifications,
// and the renaming of the finder's fields after the request's.

func TestMatchStatesBothWays(t *testing.T) {
	for n, name := range cupidv1.MatchState_name {
		s := cupidv1.MatchState(n)
		in, ok := matchStateIn[s]
		if !ok {
			t.Errorf("%s is not read", name)
			continue
		}
		if s == cupidv1.MatchState_MATCH_STATE_UNSPECIFIED {
			if in != "" {
				t.Errorf("%s reads as %q, want every state", name, in)
			}
			continue
		}
		if out := matchStateOut[in]; out != s {
			t.Errorf("%s reads as %q, which is written %s", name, in, out)
		}
	}
	if len(matchStateOut) != len(cupidv1.MatchState_name)-1 {
		t.Errorf("%d match states written, %d in the API", len(matchStateOut), len(cupidv1.MatchState_name)-1)
	}
	for _, r := range []opponent.ResultType{opponent.ResultSuccess, opponent.ResultNoneFound, opponent.ResultFakeOpponent} {
		if resultOut[r] == cupidv1.OpponentResult_OPPONENT_RESULT_UNSPECIFIED {
			t.Errorf("result %v has no API value", r)
		}
	}
}

// Settings read in and written out again are the settings given: whole
// seconds as seconds, milliseconds as milliseconds, the optional ones
// present.
func TestEventSettingsRoundTrip(t *testing.T) {
	i32 := func(v int32) *int32 { return &v }
	yes := true
	reveal := timestamppb.New(time.Date(2026, 2, 14, 20, 0, 0, 0, time.UTC))
	for name, s := range map[string]*cupidv1.EventSettings{
		"seconds": {Rooms: 3, RoundSeconds: 300, CountdownSeconds: 30, MinLobby: 4, Trios: &yes, MinDateSeconds: i32(60), ExtensionSeconds: i32(120)},
		"millis":  {Rooms: 1, RoundMillis: 1500, CountdownMillis: 250, Trios: new(bool), MinDateSeconds: i32(0), ExtensionSeconds: i32(0)},
		"two-sided": {Rooms: 2, RoundSeconds: 60, CountdownSeconds: 5, Mode: "two_sided", Sides: []string{"table", "move"},
			Trios: new(bool), MinDateSeconds: i32(0), ExtensionSeconds: i32(0), RevealAt: reveal},
	} {
		cfg, err := settingsIn(s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := settingsOut(cfg); !proto.Equal(got, s) {
			t.Errorf("%s: read back as %v, want %v", name, got, s)
		}
	}
	// An update keeps what it is not given.
	cur, _ := settingsIn(&cupidv1.EventSettings{Rooms: 3, RoundSeconds: 300, Sides: []string{"a", "b"}, Mode: "two_sided"})
	got, err := updateSettingsIn(&cupidv1.EventSettings{CountdownMillis: 500, MinLobby: 6}, cur)
	if err != nil {
		t.Fatal(err)
	}
	if got.Rooms != 3 || got.Round != 300*time.Second || got.Countdown != 500*time.Millisecond || got.MinLobby != 6 || got.Mode != "two_sided" {
		t.Fatalf("update %+v", got)
	}
	got.Sides[0] = "changed"
	if cur.Sides[0] != "a" {
		t.Fatal("an update shares the current sides")
	}
	if _, err := updateSettingsIn(&cupidv1.EventSettings{RevealAt: &timestamppb.Timestamp{Seconds: -1 << 62}}, cur); fieldOf(err) != "settings.reveal_at" {
		t.Fatalf("an impossible reveal time: %v", err)
	}
}

func TestSessionAndNotificationOut(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m := &cupid.Match{ID: "m", Seats: []int{2, 1}, Backfill: true, BackfillOptions: map[string][]string{"map": {"forest", "desert"}},
		Left: []cupid.Leaver{{PlayerID: "bob", Team: 1, At: at, Replaced: true}}, AcceptBy: at.Add(20 * time.Second)}
	out := matchOut(m)
	want := &cupidv1.Match{Seats: []int32{2, 1}, Backfill: true,
		BackfillOptions: map[string]*structpb.ListValue{"map": {Values: []*structpb.Value{structpb.NewStringValue("forest"), structpb.NewStringValue("desert")}}},
		Left:            []*cupidv1.Leaver{{PlayerId: "bob", Team: 1, At: timestamppb.New(at), Replaced: true}}, AcceptBy: timestamppb.New(at.Add(20 * time.Second))}
	if !proto.Equal(out.GetBackfillOptions()["map"], want.BackfillOptions["map"]) || !proto.Equal(out.GetLeft()[0], want.Left[0]) ||
		len(out.GetSeats()) != 2 || out.GetSeats()[0] != 2 || !out.GetBackfill() || !proto.Equal(out.GetAcceptBy(), want.AcceptBy) {
		t.Fatalf("session out %v", out)
	}

	// Zero times are left out of a notification; a record goes with it.
	n := notificationOut(pairingsvc.Notification{Notification: pairing.Notification{Kind: pairing.KindRoundRecorded, Round: 2}})
	if n.GetAt() != nil || n.GetDeadline() != nil || n.GetRecord() != nil || n.GetKind() != "round_recorded" || n.GetRound() != 2 {
		t.Fatalf("notification %v", n)
	}
	rec := &pairing.RoundRecord{Seq: 4, Round: 2, At: at, Rooms: []pairing.RoomPair{{Room: 1, A: "ann", B: "bob", C: "cid", Until: at}}, SatOut: []string{"dan"}}
	n = notificationOut(pairingsvc.Notification{Notification: pairing.Notification{Kind: pairing.KindRoundRecorded, At: at, Deadline: at, Record: rec}})
	r := n.GetRecord()
	if n.GetAt() == nil || n.GetDeadline() == nil || r.GetSeq() != 4 || len(r.GetRooms()) != 1 || r.GetRooms()[0].GetC() != "cid" ||
		r.GetRooms()[0].GetUntil() == nil || r.GetSatOut()[0] != "dan" {
		t.Fatalf("notification with a record %v", n)
	}
}

// The finder names fields after its own types; the answer names them
// after what the caller sent.
func TestFinderFieldsRenamedAfterTheRequest(t *testing.T) {
	fail := func(field string) error { return cupid.Invalid(field, "bad") }
	labelled := &cupidv1.PlayerModel{Labels: map[string]*structpb.Value{"arena": structpb.NewStringValue("x")}}
	entries := &cupidv1.PlayerModel{Entries: []*cupidv1.PlayerEntry{{Labels: map[string]*structpb.Value{"arena": structpb.NewStringValue("x")}}, {}}}
	for _, c := range []struct {
		model       *cupidv1.PlayerModel
		idField, in string
		want        string
	}{
		{labelled, "player_id", "player_id", "player_id"},
		{labelled, "model.id", "player_id", "model.id"},
		{labelled, "", "entries", "model.extra_mmrs"},
		{entries, "", "entries", "model.entries"},
		{labelled, "", "entries[0].mmr", "model.mmr"},
		{labelled, "", "entries[2].mmr", "model.extra_mmrs[1]"},
		{labelled, "", "entries[0].attributes.arena", "model.labels.arena"},
		{labelled, "", "entries[0].attributes.power[2]", "model.attributes.power[2]"},
		{entries, "", "entries[0].attributes.arena", "model.entries[0].labels.arena"},
		{entries, "", "entries[1].attributes.power", "model.entries[1].attributes.power"},
		{entries, "", "entries[1].mmr", "model.entries[1].mmr"},
		{entries, "", "entries[5].mmr", "entries[5].mmr"},
		{entries, "", "entries[x].mmr", "entries[x].mmr"},
		{entries, "", "entries[1", "entries[1"},
		{entries, "", "finder", "finder"},
	} {
		if got := fieldOf(modelFieldOut(fail(c.in), c.model, c.idField)); got != c.want {
			t.Errorf("model field %s: %s, want %s", c.in, got, c.want)
		}
	}
	for in, want := range map[string]string{
		"attacker_id": "attacker.id", "mmr": "attacker.mmr", "exclude": "excluded_ids", "exclude[3]": "excluded_ids[3]",
		"attributes.arena": "attacker.labels.arena", "attributes.power": "attacker.attributes.power", "retries": "retries",
	} {
		if got := fieldOf(queryFieldOut(fail(in), labelled)); got != want {
			t.Errorf("query field %s: %s, want %s", in, got, want)
		}
	}
	// Errors without a field, and other errors, pass as they are.
	plain := errors.New("disk gone")
	if renameField(plain, func(string) string { return "x" }) != plain {
		t.Error("an error without a field was changed")
	}
	if got := renameField(cupid.Invalid("", "bad"), func(string) string { return "x" }); fieldOf(got) != "" {
		t.Errorf("an error of no field got %q", fieldOf(got))
	}
}

// fieldOf is the field an error names; empty for none.
func fieldOf(err error) string {
	var e *cupid.Error
	if errors.As(err, &e) {
		return e.Field
	}
	return ""
}
