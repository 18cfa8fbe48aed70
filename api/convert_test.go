package api

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/engine"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

func list(items ...*structpb.Value) *structpb.Value {
	return structpb.NewListValue(&structpb.ListValue{Values: items})
}

func TestAttributesEveryKindInAndOut(t *testing.T) {
	in := map[string]*structpb.Value{
		"mmr":      structpb.NewNumberValue(1500.5),
		"negative": structpb.NewNumberValue(-3),
		"zero":     structpb.NewNumberValue(0),
		"mode":     structpb.NewStringValue("ranked"),
		"empty":    structpb.NewStringValue(""),
		"ranked":   structpb.NewBoolValue(true),
		"casual":   structpb.NewBoolValue(false),
		"tags":     list(structpb.NewStringValue("a"), structpb.NewStringValue("b")),
		"none":     list(),
		"skills": structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{
			"sword": structpb.NewNumberValue(10), "bow": structpb.NewNumberValue(3)}}),
	}
	got, err := attributesIn("players[0].attributes", in)
	if err != nil {
		t.Fatal(err)
	}
	want := cupid.Attributes{
		{Name: "casual", Value: cupid.Bool(false)},
		{Name: "empty", Value: cupid.String("")},
		{Name: "mmr", Value: cupid.Number(1500.5)},
		{Name: "mode", Value: cupid.String("ranked")},
		{Name: "negative", Value: cupid.Number(-3)},
		{Name: "none", Value: cupid.Strings()},
		{Name: "ranked", Value: cupid.Bool(true)},
		{Name: "skills", Value: cupid.Numbers(map[string]float64{"sword": 10, "bow": 3})},
		{Name: "tags", Value: cupid.Strings("a", "b")},
		{Name: "zero", Value: cupid.Number(0)},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d attributes, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Name != w.Name || g.Value.Kind != w.Value.Kind || g.Value.Number != w.Value.Number ||
			g.Value.String != w.Value.String || g.Value.Bool != w.Value.Bool || len(g.Value.Strings) != len(w.Value.Strings) ||
			!reflect.DeepEqual(append([]string{}, g.Value.Strings...), append([]string{}, w.Value.Strings...)) ||
			!reflect.DeepEqual(g.Value.Map, w.Value.Map) {
			t.Errorf("attribute %d: got %+v, want %+v", i, g, w)
		}
	}
	// Sorted with no name twice, as Get and Validate want.
	if err := (&cupid.Ticket{Key: cupid.QueueKey{Queue: "q"}, Players: []cupid.Player{{ID: "p", Attributes: got}}}).Validate(); err != nil {
		t.Fatalf("the converted attributes fail Validate: %v", err)
	}
	if v, ok := got.Get("tags"); !ok || v.Kind != cupid.KindStrings {
		t.Fatalf("Get(tags) = %+v, %v", v, ok)
	}
	out := attributesOut(got)
	if len(out) != len(in) {
		t.Fatalf("out has %d attributes, want %d", len(out), len(in))
	}
	for name, v := range in {
		if !proto.Equal(out[name], v) {
			t.Errorf("%s: out %v, want %v", name, out[name], v)
		}
	}
	if attributesOut(nil) != nil {
		t.Fatal("no attributes should give a nil map")
	}
	if a, err := attributesIn("attributes", nil); a != nil || err != nil {
		t.Fatalf("no attributes in: %v, %v", a, err)
	}
}

func TestValueOutLeavesUnknownKindsOut(t *testing.T) {
	if v := valueOut(cupid.Value{}); v != nil {
		t.Fatalf("a value of no kind became %v", v)
	}
	m := attributeMapOut(map[string]cupid.Value{"mmr": cupid.Number(7), "bad": {Kind: 99}, "ok": cupid.Bool(true)})
	if len(m) != 2 || m["mmr"].GetNumberValue() != 7 || !m["ok"].GetBoolValue() {
		t.Fatalf("attributeMapOut = %v", m)
	}
	if attributeMapOut(nil) != nil {
		t.Fatal("no attributes should give a nil map")
	}
	out := attributesOut(cupid.Attributes{{Name: "bad", Value: cupid.Value{Kind: 99}}, {Name: "x", Value: cupid.String("y")}})
	if _, ok := out["bad"]; ok || out["x"].GetStringValue() != "y" {
		t.Fatalf("attributesOut = %v", out)
	}
}

func TestTicketInRefusesBadValuesNamingTheField(t *testing.T) {
	nested, _ := structpb.NewStruct(map[string]any{"sword": 10, "bow": "three"})
	deep, _ := structpb.NewStruct(map[string]any{"sword": map[string]any{"iron": 1}})
	for _, c := range []struct {
		name  string
		req   *cupidv1.CreateTicketRequest
		field string
		msg   string
	}{
		{"no queue", &cupidv1.CreateTicketRequest{Players: []*cupidv1.Player{player("a", 1)}}, "queue", "required"},
		{"NaN", withPlayerAttr("mmr", structpb.NewNumberValue(math.NaN())), "players[0].attributes.mmr", "finite"},
		{"+Inf", withPlayerAttr("mmr", structpb.NewNumberValue(math.Inf(1))), "players[0].attributes.mmr", "finite"},
		{"-Inf", withPlayerAttr("mmr", structpb.NewNumberValue(math.Inf(-1))), "players[0].attributes.mmr", "finite"},
		{"number in a list", withPlayerAttr("tags", list(structpb.NewStringValue("a"), structpb.NewNumberValue(1))), "players[0].attributes.tags[1]", "only strings"},
		{"bool in a list", withPlayerAttr("tags", list(structpb.NewBoolValue(true))), "players[0].attributes.tags[0]", "only strings"},
		{"list in a list", withPlayerAttr("tags", list(structpb.NewStringValue("a"), structpb.NewStringValue("b"), list())), "players[0].attributes.tags[2]", "only strings"},
		{"nil in a list", withPlayerAttr("tags", list(nil)), "players[0].attributes.tags[0]", "only strings"},
		{"null", withPlayerAttr("mmr", structpb.NewNullValue()), "players[0].attributes.mmr", "must be a number, a boolean, a string, a list of strings or a map of numbers"},
		{"string in a map", withPlayerAttr("skills", structpb.NewStructValue(nested)), "players[0].attributes.skills.bow", "only numbers"},
		{"map in a map", withPlayerAttr("skills", structpb.NewStructValue(deep)), "players[0].attributes.skills.sword", "only numbers"},
		{"NaN in a map", withPlayerAttr("skills", structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{
			"sword": structpb.NewNumberValue(math.NaN())}})), "players[0].attributes.skills.sword", "finite"},
		{"nil value", withPlayerAttr("mmr", nil), "players[0].attributes.mmr", "must be a number"},
		{"empty value", withPlayerAttr("mmr", &structpb.Value{}), "players[0].attributes.mmr", "must be a number"},
		{"second player", &cupidv1.CreateTicketRequest{Queue: "duel", Players: []*cupidv1.Player{
			player("a", 1), {Id: "b", Attributes: map[string]*structpb.Value{"mmr": structpb.NewNumberValue(math.NaN())}},
		}}, "players[1].attributes.mmr", "finite"},
		{"ticket attribute", &cupidv1.CreateTicketRequest{Queue: "duel", Players: []*cupidv1.Player{player("a", 1)},
			Attributes: map[string]*structpb.Value{"region": list(structpb.NewNumberValue(2))}}, "attributes.region[0]", "only strings"},
		{"first bad name in order", &cupidv1.CreateTicketRequest{Queue: "duel", Players: []*cupidv1.Player{{Id: "a", Attributes: map[string]*structpb.Value{
			"zeta": structpb.NewNumberValue(math.NaN()), "alpha": structpb.NewNumberValue(math.Inf(1)), "mmr": structpb.NewNullValue(),
		}}}}, "players[0].attributes.alpha", "finite"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tk, err := ticketIn(c.req)
			if tk != nil {
				t.Fatalf("a ticket came out: %+v", tk)
			}
			var e *cupid.Error
			if !errors.As(err, &e) || e.Code != cupid.CodeInvalid || e.Field != c.field {
				t.Fatalf("error %v, want invalid on %q", err, c.field)
			}
			if !strings.Contains(e.Message, c.msg) || !strings.HasPrefix(err.Error(), c.field+": ") {
				t.Fatalf("error %q should name %q and say %q", err, c.field, c.msg)
			}
		})
	}
}

func withPlayerAttr(name string, v *structpb.Value) *cupidv1.CreateTicketRequest {
	return &cupidv1.CreateTicketRequest{Queue: "duel", Players: []*cupidv1.Player{{Id: "a", Attributes: map[string]*structpb.Value{name: v}}}}
}

func TestTicketInCarriesEveryField(t *testing.T) {
	req := &cupidv1.CreateTicketRequest{
		Queue:      "duel",
		Players:    []*cupidv1.Player{player("a", 1500), {Id: "b"}},
		Latencies:  map[string]int32{"eu": 20, "us": 90},
		Attributes: map[string]*structpb.Value{"mode": structpb.NewStringValue("ranked")},
		RequestId:  "req-1",
		Version:    "1.0",
		CustomKey:  "night",
		Replace:    true,
	}
	tk, err := ticketIn(req)
	if err != nil {
		t.Fatal(err)
	}
	if tk.Key != (cupid.QueueKey{Queue: "duel", Version: "1.0", Custom: "night"}) || tk.RequestID != "req-1" ||
		!reflect.DeepEqual(tk.Latencies, req.Latencies) || len(tk.Players) != 2 || tk.Players[0].ID != "a" || tk.Players[1].ID != "b" ||
		tk.Players[1].Attributes != nil {
		t.Fatalf("ticket %+v", tk)
	}
	if v, _ := tk.Players[0].Attributes.Get("mmr"); v.Kind != cupid.KindNumber || v.Number != 1500 {
		t.Fatalf("mmr %+v", v)
	}
	if v, _ := tk.Attributes.Get("mode"); v.Kind != cupid.KindString || v.String != "ranked" {
		t.Fatalf("mode %+v", v)
	}
	if tk.ID != "" || !tk.CreatedAt.IsZero() || tk.State != "" {
		t.Fatalf("the server's fields are set by the service, not the conversion: %+v", tk)
	}
}

func TestClientVersionGoesIntoTheQueueKey(t *testing.T) {
	for _, c := range []struct {
		name    string
		version string
		cv      *structpb.Value
		want    string
	}{
		{"string client_version", "", structpb.NewStringValue("2.1"), "2.1"},
		{"explicit version wins", "3.0", structpb.NewStringValue("2.1"), "3.0"},
		{"numeric client_version is not a version", "", structpb.NewNumberValue(2), ""},
		{"no client_version", "", nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := &cupidv1.CreateTicketRequest{Queue: "duel", Version: c.version, Players: []*cupidv1.Player{player("a", 1)}}
			if c.cv != nil {
				req.Attributes = map[string]*structpb.Value{"client_version": c.cv}
			}
			tk, err := ticketIn(req)
			if err != nil {
				t.Fatal(err)
			}
			if tk.Key.Version != c.want {
				t.Fatalf("version %q, want %q", tk.Key.Version, c.want)
			}
			if c.cv != nil {
				if _, ok := tk.Attributes.Get("client_version"); !ok {
					t.Fatal("client_version should stay an attribute too")
				}
			}
		})
	}
	// A player's client_version is his own, not the ticket's key.
	tk, err := ticketIn(&cupidv1.CreateTicketRequest{Queue: "duel", Players: []*cupidv1.Player{{Id: "a",
		Attributes: map[string]*structpb.Value{"client_version": structpb.NewStringValue("9")}}}})
	if err != nil || tk.Key.Version != "" {
		t.Fatalf("player's client_version: %+v, %v", tk, err)
	}
}

func TestStatesBothWays(t *testing.T) {
	for _, s := range []cupid.TicketState{cupid.StateWaiting, cupid.StateMatched, cupid.StateCancelled, cupid.StateExpired} {
		pb, ok := stateOut[s]
		if !ok || pb == cupidv1.TicketState_TICKET_STATE_UNSPECIFIED {
			t.Fatalf("state %q has no protobuf state", s)
		}
		if !strings.HasSuffix(pb.String(), strings.ToUpper(string(s))) {
			t.Fatalf("state %q became %s", s, pb)
		}
		if back := stateIn[pb]; back != s {
			t.Fatalf("%s came back as %q", pb, back)
		}
	}
	if len(stateIn) != len(cupidv1.TicketState_name) {
		t.Fatalf("stateIn knows %d states, the schema %d", len(stateIn), len(cupidv1.TicketState_name))
	}
	if s, ok := stateIn[cupidv1.TicketState_TICKET_STATE_UNSPECIFIED]; !ok || s != "" {
		t.Fatal("an unspecified state should mean every state")
	}
}

func TestTicketOut(t *testing.T) {
	created := epoch
	now := created.Add(90 * time.Second)
	base := cupid.Ticket{
		ID: "t1", Key: cupid.QueueKey{Queue: "duel", Version: "1.0", Custom: "night"},
		Players: []cupid.Player{{ID: "a", Attributes: cupid.NewAttributes(map[string]cupid.Value{
			"mmr": cupid.Number(1500), "tags": cupid.Strings("x"), "ranked": cupid.Bool(true), "mode": cupid.String("m"),
		})}},
		Latencies: map[string]int32{"eu": 20}, Attributes: cupid.NewAttributes(map[string]cupid.Value{"mode": cupid.String("ranked")}),
		RequestID: "r1", CreatedAt: created, ExpiresAt: created.Add(ttl), UpdatedAt: created,
	}
	for _, c := range []struct {
		name    string
		state   cupid.TicketState
		updated time.Duration // after created; -1 for none
		reason  string
		waited  time.Duration
	}{
		{"waiting counts to now", cupid.StateWaiting, 0, "", 90 * time.Second},
		{"waiting ignores its last update", cupid.StateWaiting, 10 * time.Second, "", 90 * time.Second},
		{"matched counts to the match", cupid.StateMatched, 12 * time.Second, "", 12 * time.Second},
		{"cancelled counts to the cancel, with reason", cupid.StateCancelled, 30 * time.Second, "replaced by ticket t2", 30 * time.Second},
		{"expired counts to the expiry", cupid.StateExpired, ttl, "", ttl},
		{"final without an update counts to now", cupid.StateCancelled, -1, "", 90 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			tk := base
			tk.State, tk.Reason = c.state, c.reason
			if c.state == cupid.StateMatched {
				tk.MatchID = "m1"
			}
			if c.updated >= 0 {
				tk.UpdatedAt = created.Add(c.updated)
			} else {
				tk.UpdatedAt = time.Time{}
			}
			out := ticketOut(&tk, nil, now)
			if got := out.GetWaited().AsDuration(); got != c.waited {
				t.Fatalf("waited %v, want %v", got, c.waited)
			}
			if out.GetState() != stateOut[c.state] || out.GetReason() != c.reason || out.GetMatchId() != tk.MatchID {
				t.Fatalf("state %s reason %q match %q", out.GetState(), out.GetReason(), out.GetMatchId())
			}
			if out.GetId() != "t1" || out.GetQueue() != "duel" || out.GetVersion() != "1.0" || out.GetCustomKey() != "night" ||
				out.GetRequestId() != "r1" || out.GetLatencies()["eu"] != 20 || out.GetAttributes()["mode"].GetStringValue() != "ranked" ||
				!out.GetCreatedAt().AsTime().Equal(created) || !out.GetExpiresAt().AsTime().Equal(created.Add(ttl)) {
				t.Fatalf("ticket %v", out)
			}
			pa := out.GetPlayers()[0].GetAttributes()
			if len(out.GetPlayers()) != 1 || out.GetPlayers()[0].GetId() != "a" || pa["mmr"].GetNumberValue() != 1500 ||
				pa["tags"].GetListValue().GetValues()[0].GetStringValue() != "x" || !pa["ranked"].GetBoolValue() || pa["mode"].GetStringValue() != "m" {
				t.Fatalf("players %v", out.GetPlayers())
			}
			if out.Match != nil || out.Why != nil {
				t.Fatal("no match or explanation was given")
			}
		})
	}
	m := &cupid.Match{
		ID: "m1", Key: cupid.QueueKey{Queue: "duel"}, CreatedAt: created.Add(time.Second), Region: "eu",
		Roles:   map[string]string{"a": "tank"},
		Teams:   []cupid.Team{{TicketIDs: []string{"t1"}, PlayerIDs: []string{"a"}}, {TicketIDs: []string{"t2"}, PlayerIDs: []string{"b"}}},
		Quality: cupid.Quality{Score: 0.75, Parts: cupid.QualityParts{{Name: "skill_gap", Score: 0.5}, {Name: "wait", Score: 1}}},
	}
	why := &engine.Explanation{Summary: "nobody close enough", Compatible: 3, Self: "party too large",
		Blocks: []engine.Block{{Rule: "matching_rule[0] mmr", Removed: 4, Nearest: "mmr distance 340 > 200 allowed"}}}
	tk := base
	tk.State = cupid.StateMatched
	out := ticketOut(&tk, m, now)
	pm := out.GetMatch()
	if pm.GetId() != "m1" || pm.GetQueue() != "duel" || pm.GetRegion() != "eu" || pm.GetRoles()["a"] != "tank" ||
		len(pm.GetTeams()) != 2 || pm.GetTeams()[1].GetPlayerIds()[0] != "b" || pm.GetTeams()[0].GetTicketIds()[0] != "t1" ||
		pm.GetQuality().GetScore() != 0.75 || pm.GetQuality().GetParts()["skill_gap"] != 0.5 || !pm.GetCreatedAt().AsTime().Equal(m.CreatedAt) {
		t.Fatalf("match %v", pm)
	}
	if out.GetWhy() != nil {
		t.Fatalf("a ticket converted alone explains its wait: %v", out.GetWhy())
	}
	w := whyOut(&ticketsvc.TicketView{Ticket: &tk, Why: why})
	if w.GetSummary() != "nobody close enough" || w.GetCandidates() != 3 || w.GetNextRelaxation() != nil || len(w.GetBlocks()) != 2 ||
		w.GetBlocks()[0].GetRule() != "self" || w.GetBlocks()[0].GetDetail() != "party too large" ||
		w.GetBlocks()[1].GetExcluded() != 4 || w.GetBlocks()[1].GetDetail() != "mmr distance 340 > 200 allowed" {
		t.Fatalf("why %v", w)
	}
	why.NextRelaxation, why.Self = created.Add(10*time.Second), ""
	w = whyOut(&ticketsvc.TicketView{Ticket: &tk, Why: why})
	if !w.GetNextRelaxation().AsTime().Equal(why.NextRelaxation) || len(w.GetBlocks()) != 1 {
		t.Fatalf("why %v", w)
	}
}

func TestEventOut(t *testing.T) {
	at := epoch.Add(time.Minute)
	for _, ev := range []cupid.Event{
		{Seq: 1, TicketID: "t1", Kind: cupid.EventCreated, At: epoch},
		{Seq: 7, TicketID: "t1", Kind: cupid.EventCancelled, At: at, Reason: "replaced by ticket t2"},
		{Seq: 8, TicketID: "t1", Kind: cupid.EventExpired, At: at},
		{Seq: 9, TicketID: "t1", Kind: cupid.EventMatched, At: at, Match: &cupid.Match{ID: "m1", Teams: []cupid.Team{{PlayerIDs: []string{"a"}}}}},
	} {
		out := eventOut(ev)
		if out.GetSeq() != ev.Seq || out.GetTicketId() != ev.TicketID || out.GetKind() != string(ev.Kind) ||
			!out.GetAt().AsTime().Equal(ev.At) || out.GetReason() != ev.Reason {
			t.Fatalf("%+v became %v", ev, out)
		}
		if (ev.Match != nil) != (out.GetMatch() != nil) || ev.Match != nil && out.GetMatch().GetId() != ev.Match.ID {
			t.Fatalf("%+v: match %v", ev, out.GetMatch())
		}
	}
}

func TestPoolStatsOut(t *testing.T) {
	out := poolStatsOut(ticketsvc.PoolStats{
		Key: cupid.QueueKey{Queue: "duel", Version: "1", Custom: "c"}, Waiting: 3, Players: 4, OldestWait: 5 * time.Second,
		MatchesFormed: 6, MeanQuality: 0.5, RulesetVersion: 2,
	})
	want := &cupidv1.PoolStats{Queue: "duel", Version: "1", CustomKey: "c", Waiting: 3, PlayersWaiting: 4, MatchesFormed: 6, MeanQuality: 0.5, RulesetVersion: 2}
	want.OldestWait = out.OldestWait
	if !proto.Equal(out, want) || out.GetOldestWait().AsDuration() != 5*time.Second {
		t.Fatalf("pool stats %v", out)
	}
}

// FuzzTicketIn builds valid protobuf requests from fuzzed strings and
// numbers. ticketIn must never panic; it either refuses the request naming
// a field, or returns a ticket that Ticket.Validate accepts or refuses
// naming a field. An accepted ticket's attributes come back out as they
// went in.
func FuzzTicketIn(f *testing.F) {
	f.Add("duel", "alice", "mmr", 1500.0, "tag", "1.0", "", "eu", int32(20), uint8(0), "", true)
	f.Add("duel", "bob", "tags", math.NaN(), "x", "", "k", "us", int32(-1), uint8(1), "2.0", false)
	f.Add("", "", "", math.Inf(1), "", "", "", "", int32(0), uint8(2), "", false)
	f.Add("duel", "a", "mmr", math.Inf(-1), "\xff", "\xfe", "\xfd", "\xfc", int32(70000), uint8(3), "\xff", true)
	f.Add(strings.Repeat("q", 200), "a", strings.Repeat("n", 200), 1.0, strings.Repeat("s", 300), "", "", "eu", int32(5), uint8(4), strings.Repeat("v", 200), false)
	f.Add("duel", "a", "client_version", 0.0, "9.9", "", "", "", int32(0), uint8(5), "", false)
	f.Fuzz(func(t *testing.T, queue, id, name string, num float64, str, version, custom, region string, ms int32, kind uint8, cv string, flag bool) {
		var v *structpb.Value
		switch kind % 8 {
		case 0:
			v = structpb.NewNumberValue(num)
		case 1:
			v = structpb.NewStringValue(str)
		case 2:
			v = structpb.NewBoolValue(flag)
		case 3:
			v = list(structpb.NewStringValue(str), structpb.NewStringValue(id))
		case 4:
			v = list(structpb.NewStringValue(str), structpb.NewNumberValue(num))
		case 5:
			v = structpb.NewNullValue()
		case 6:
			v = list()
		case 7:
			v = nil
		}
		req := &cupidv1.CreateTicketRequest{
			Queue: queue, Version: version, CustomKey: custom, RequestId: str,
			Players: []*cupidv1.Player{
				{Id: id, Attributes: map[string]*structpb.Value{name: v, "mmr": structpb.NewNumberValue(num)}},
				{Id: str},
			},
			Latencies:  map[string]int32{region: ms},
			Attributes: map[string]*structpb.Value{"client_version": structpb.NewStringValue(cv), name: structpb.NewBoolValue(flag)},
			Replace:    flag,
		}
		tk, err := ticketIn(req)
		if err != nil {
			if tk != nil {
				t.Fatalf("both a ticket and an error: %v", err)
			}
			wantField(t, "ticketIn", err)
			return
		}
		if tk == nil {
			t.Fatal("neither a ticket nor an error")
		}
		if err := tk.Validate(); err != nil {
			wantField(t, "Validate", err)
			return
		}
		// An accepted ticket: its attributes come back out unchanged.
		out := ticketOut(tk, nil, epoch)
		for i, p := range req.GetPlayers() {
			for k, pv := range p.GetAttributes() {
				if got := out.GetPlayers()[i].GetAttributes()[k]; !proto.Equal(got, pv) {
					t.Fatalf("players[%d].attributes.%s: %v came out as %v", i, k, pv, got)
				}
			}
		}
		for k, pv := range req.GetAttributes() {
			if got := out.GetAttributes()[k]; !proto.Equal(got, pv) {
				t.Fatalf("attributes.%s: %v came out as %v", k, pv, got)
			}
		}
		if out.GetQueue() != queue || out.GetCustomKey() != custom {
			t.Fatalf("queue key %q %q came out as %q %q", queue, custom, out.GetQueue(), out.GetCustomKey())
		}
		// client_version (unless name took its place) is the version
		// when none is given.
		want := version
		if s, ok := req.GetAttributes()["client_version"].GetKind().(*structpb.Value_StringValue); ok && want == "" {
			want = s.StringValue
		}
		if out.GetVersion() != want {
			t.Fatalf("version %q (client_version %v) came out as %q, want %q", version, req.GetAttributes()["client_version"], out.GetVersion(), want)
		}
	})
}

// wantField fails unless err is an invalid-argument *cupid.Error naming a
// field, with a message in UTF-8 that starts with the field.
func wantField(t *testing.T, who string, err error) {
	t.Helper()
	var e *cupid.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: %v is not a domain error", who, err)
	}
	if e.Code != cupid.CodeInvalid || e.Field == "" {
		t.Fatalf("%s: %v: code %s field %q, want invalid on a field", who, err, e.Code, e.Field)
	}
	if !strings.HasPrefix(err.Error(), e.Field+": ") {
		t.Fatalf("%s: message %q does not start with its field", who, err)
	}
}
