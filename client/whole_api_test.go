package client_test

import (
	"context"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/cupid-match/cupid/client"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/opponent"
	"github.com/cupid-match/cupid/service/opponentsvc"
)

// arenaFinder is the test server's opponent finder: MMR 0..3000 in 30
// buckets, never a defender of the attacker's own guild.
func arenaFinder() opponentsvc.Finder {
	return opponentsvc.Finder{Name: "arena", Opponent: opponent.Config{
		PlayerCacheSize: 1000, MinMMR: 0, MaxMMR: 3000, MmrBucketCount: 30,
		PlayerIgnoreUpdateInsertThreshold:        opponent.ThresholdNever,
		PlayerRemoveAfterCandidateOfferThreshold: opponent.ThresholdNever,
		Attributes:                               []opponent.Attribute{{Name: "guild", Type: "string"}},
		QueryAttributes:                          []opponent.Attribute{{Name: "guild", Type: "string"}},
		Quality:                                  opponent.Quality{Filter: "player.guild != query.guild"},
		Reservations:                             opponent.Reservations{Enabled: true, Hold: opponent.Duration(time.Minute)},
		Shield:                                   opponent.Duration(time.Minute),
	}}
}

// TestEveryProcedureHasAMethod: the client covers the whole API. Each
// procedure of every service is a method of Client, Event or Finder, by
// its name or the name listed here.
func TestEveryProcedureHasAMethod(t *testing.T) {
	renamed := map[string]string{
		"TicketService.WatchTicket":      "Watch",
		"RulesetService.ValidateRuleset": "CheckRuleset",
		"PairingService.GetEvent":        "Get",
		"PairingService.DeleteEvent":     "Delete",
		"PairingService.WatchEvent":      "Watch",
		"LobbyService.GetLobby":          "Get",
		"LobbyService.JoinLobby":         "Join",
		"LobbyService.LeaveLobby":        "Leave",
		"LobbyService.CloseLobby":        "Close",
		"LobbyService.WatchLobby":        "Watch",
		"PartyService.GetParty":          "Get",
		"PartyService.AnswerInvite":      "Answer",
		"PartyService.WatchParty":        "Watch",
		"EncounterService.Erase":         "EraseEncounters",
	}
	types := []reflect.Type{reflect.TypeFor[*client.Client](), reflect.TypeFor[*client.Event](), reflect.TypeFor[*client.Finder](), reflect.TypeFor[*client.Lobby](), reflect.TypeFor[*client.Party]()}
	n := 0
	protoregistry.GlobalFiles.RangeFilesByPackage("cupid.v1", func(fd protoreflect.FileDescriptor) bool {
		for i := 0; i < fd.Services().Len(); i++ {
			sd := fd.Services().Get(i)
			for j := 0; j < sd.Methods().Len(); j++ {
				n++
				full := string(sd.Name()) + "." + string(sd.Methods().Get(j).Name())
				name := string(sd.Methods().Get(j).Name())
				if r, ok := renamed[full]; ok {
					name = r
				}
				if !slices.ContainsFunc(types, func(t reflect.Type) bool { _, ok := t.MethodByName(name); return ok }) {
					t.Errorf("%s has no method %s in package client", full, name)
				}
			}
		}
		return true
	})
	if n < 50 {
		t.Fatalf("only %d procedures found", n)
	}
}

// TestTicketsAndMatchesReadBack: tickets made from plain Go attributes are
// read back one by one and listed by state; once two match, the match is
// listed and read.
func TestTicketsAndMatchesReadBack(t *testing.T) {
	s := startServer(t)
	c := client.New(s.URL)
	ctx := context.Background()
	party, err := client.NewTicket("squad", []string{"p1", "p2"}, []map[string]any{{"mmr": 1500, "roles": []string{"tank"}}, {"mmr": int64(1510), "mic": true}})
	if err != nil {
		t.Fatal(err)
	}
	waiting, err := c.CreateTicket(ctx, party)
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.GetTicket(ctx, waiting.GetId())
	if err != nil {
		t.Fatal(err)
	}
	attrs := client.Values(got.GetPlayers()[0].GetAttributes())
	if got.GetState() != cupidv1.TicketState_TICKET_STATE_WAITING || attrs["mmr"] != 1500.0 || !reflect.DeepEqual(attrs["roles"], []any{"tank"}) {
		t.Fatalf("GetTicket: %v with attributes %v", got.GetState(), attrs)
	}
	if _, err := c.GetTicket(ctx, "no-such-ticket"); connect.CodeOf(err) != connect.CodeNotFound {
		t.Fatalf("GetTicket of an unknown id: %v", err)
	}

	var ids []string
	for _, p := range []struct {
		id  string
		mmr float64
	}{{"ann", 1000}, {"ben", 1010}} {
		req, err := client.NewTicket("duel", []string{p.id}, []map[string]any{{"mmr": p.mmr}})
		if err != nil {
			t.Fatal(err)
		}
		tk, err := c.CreateTicket(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tk.GetId())
	}
	var match string
	if err := c.Watch(ctx, ids[0], 0, func(ev *cupidv1.TicketEvent) error {
		match = ev.GetMatch().GetId()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	list, err := c.ListTickets(ctx, "squad", cupidv1.TicketState_TICKET_STATE_WAITING, 10)
	if err != nil || len(list) != 1 || list[0].GetId() != waiting.GetId() {
		t.Fatalf("ListTickets squad waiting: %v %v", list, err)
	}
	matched, err := c.ListTickets(ctx, "duel", cupidv1.TicketState_TICKET_STATE_MATCHED, 10)
	if err != nil || len(matched) != 2 {
		t.Fatalf("ListTickets duel matched: %d tickets, %v", len(matched), err)
	}
	matches, err := c.ListMatches(ctx, "duel", cupidv1.MatchState_MATCH_STATE_UNSPECIFIED, 0)
	if err != nil || len(matches) != 1 || matches[0].GetMatch().GetId() != match {
		t.Fatalf("ListMatches: %v %v, want match %s", matches, err, match)
	}
	m, err := c.GetMatch(ctx, match)
	if err != nil || len(m.GetMatch().GetTeams()) != 2 {
		t.Fatalf("GetMatch: %v %v", m, err)
	}
	pools, err := c.QueueStats(ctx, "squad")
	if err != nil || len(pools) != 1 || pools[0].GetWaiting() != 1 || pools[0].GetPlayersWaiting() != 2 {
		t.Fatalf("QueueStats squad: %v %v", pools, err)
	}
}

// TestAttributesRefusedBeforeAnyCall: a value the API cannot carry is
// refused by the client, naming the attribute, without calling.
func TestAttributesRefusedBeforeAnyCall(t *testing.T) {
	for _, c := range []struct {
		name  string
		value any
		want  string
	}{
		{"struct", struct{}{}, `attribute "bad": struct {} is not an attribute value`},
		{"NaN", math.NaN(), `attribute "bad": NaN is not a finite number`},
		{"Inf", float32(math.Inf(1)), `attribute "bad": +Inf is not a finite number`},
		{"numbers", []int{1}, `attribute "bad": []int is not an attribute value`},
		{"mixed list", []any{"a", 1}, `attribute "bad": a list may hold only strings; item 1 is int`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := client.NewPlayer("alice", map[string]any{"good": 1, "bad": c.value})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "player alice") {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
	s := startServer(t)
	c := client.New(s.URL)
	_, err := c.Finder("arena").UpdatePlayer(context.Background(), client.Model{ID: "x", MMR: 1, Attributes: map[string]any{"guild": map[string]int{}}})
	if err == nil || !strings.Contains(err.Error(), `attributes: attribute "guild"`) {
		t.Fatalf("UpdatePlayer with a map attribute: %v", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.auth) != 0 {
		t.Fatalf("the server got %d requests", len(s.auth))
	}
}

// TestRulesets: check, get, and put with and without the expected
// version; a bad ruleset changes nothing.
func TestRulesets(t *testing.T) {
	s := startServer(t)
	c := client.New(s.URL)
	ctx := context.Background()
	problems, err := c.CheckRuleset(ctx, `{"alliance": {"min_number": 2, "max_number": 1}}`)
	if err != nil || len(problems) == 0 || !strings.HasPrefix(problems[0].GetPath(), "alliance") {
		t.Fatalf("CheckRuleset of a bad ruleset: %v %v", problems, err)
	}
	if problems, err := c.CheckRuleset(ctx, duel); err != nil || len(problems) != 0 {
		t.Fatalf("CheckRuleset of a good ruleset: %v %v", problems, err)
	}
	ruleset, version, err := c.GetRuleset(ctx, "duel")
	if err != nil || !strings.Contains(ruleset, "matching_rule") || version < 1 {
		t.Fatalf("GetRuleset: %q %d %v", ruleset, version, err)
	}
	wider := strings.Replace(duel, `"reference": 100`, `"reference": 200`, 1)
	next, err := c.PutRuleset(ctx, "duel", wider, version)
	if err != nil || next != version+1 {
		t.Fatalf("PutRuleset at version %d: %d %v", version, next, err)
	}
	if _, err := c.PutRuleset(ctx, "duel", duel, version); connect.CodeOf(err) != connect.CodeFailedPrecondition {
		t.Fatalf("PutRuleset at a stale version: %v, want failed_precondition", err)
	}
	if _, err := c.PutRuleset(ctx, "duel", `{"alliance": {}}`, 0); connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("PutRuleset of a bad ruleset: %v, want invalid_argument", err)
	}
	if now, v, _ := c.GetRuleset(ctx, "duel"); v != next || !strings.Contains(now, `"reference": 200`) {
		t.Fatalf("after the refused puts: version %d, %q", v, now)
	}
	imp, err := c.ImportRuleset(ctx, "nakama", `{"query":"+properties.mode:ranked","min_count":2,"max_count":2}`)
	if err != nil || imp.GetOutcome() != "exact" || !strings.Contains(imp.GetRuleset(), "ticket_query") || len(imp.GetEntries()) == 0 {
		t.Fatalf("ImportRuleset: %v %v", imp, err)
	}
	if _, err := c.ImportRuleset(ctx, "matchmaker-x", "{}"); connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("ImportRuleset from an unknown product: %v, want invalid_argument", err)
	}
	if now, v, _ := c.GetRuleset(ctx, "duel"); v != next {
		t.Fatalf("an import changed the queue's ruleset: version %d, %q", v, now)
	}
}

// TestOpponents: players in, an attacker finds a defender outside his
// guild with its model in plain values, reserves him, confirms; online
// players are not offered; stats count it all; a removed player is gone.
func TestOpponents(t *testing.T) {
	s := startServer(t)
	c := client.New(s.URL)
	ctx := context.Background()
	f := c.Finder("arena")
	for _, m := range []client.Model{
		{ID: "red-1", MMR: 1500, Attributes: map[string]any{"guild": "red"}},
		{ID: "blue-1", MMR: 1520, Attributes: map[string]any{"guild": "blue"}},
		{ID: "blue-2", MMR: 1480, Attributes: map[string]any{"guild": "blue"}},
	} {
		if res, err := f.UpdatePlayer(ctx, m); err != nil || res.GetOutcome() != "added" {
			t.Fatalf("UpdatePlayer %s: %v %v", m.ID, res, err)
		}
	}
	if _, err := f.SetPlayerOnline(ctx, "blue-1", true); err != nil {
		t.Fatal(err)
	}
	attacker := client.Model{ID: "red-2", MMR: 1510, Attributes: map[string]any{"guild": "red"}}
	found, err := f.FindOpponent(ctx, attacker, client.FindOptions{ReturnModel: true, Reserve: true})
	if err != nil {
		t.Fatal(err)
	}
	// red-1 is his guild's, blue-1 is online: blue-2 is the one left.
	if found.GetResult() != cupidv1.OpponentResult_OPPONENT_RESULT_SUCCESS || found.GetPlayerId() != "blue-2" {
		t.Fatalf("FindOpponent: %v %s", found.GetResult(), found.GetPlayerId())
	}
	if m := client.ModelOf(found.GetModel()); m.Attributes["guild"] != "blue" || m.MMR != 1480 {
		t.Fatalf("the defender's model: %+v", m)
	}
	confirmed, err := f.ConfirmAttack(ctx, found.GetReservation().GetId(), "red-2")
	if err != nil || confirmed.GetShieldUntil() == nil {
		t.Fatalf("ConfirmAttack: %v %v", confirmed, err)
	}
	if _, err := f.ReleaseReservation(ctx, found.GetReservation().GetId(), "red-2"); err == nil {
		t.Fatal("a confirmed reservation was released")
	}
	// blue-2 is shielded now, blue-1 online: nobody to offer.
	if again, err := f.FindOpponent(ctx, attacker, client.FindOptions{}); err != nil || again.GetPlayerId() != "" {
		t.Fatalf("FindOpponent with everyone shielded or online: %v %v", again, err)
	}
	stats, err := f.FinderStats(ctx, true)
	if err != nil || stats.GetPlayers() != 3 || stats.GetConfirmed() != 1 || stats.GetOnline() != 1 || len(stats.GetBucketFill()) == 0 {
		t.Fatalf("FinderStats: %v %v", stats, err)
	}
	if n, err := f.RemovePlayer(ctx, "red-1"); err != nil || n != 1 {
		t.Fatalf("RemovePlayer: %d %v", n, err)
	}
	if _, err := f.Rebalance(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Finder("nope").FinderStats(ctx, false); connect.CodeOf(err) != connect.CodeNotFound {
		t.Fatalf("an unknown finder: %v, want not_found", err)
	}
}

// TestEventRound: an event with two participants in the lobby, a round
// pairs them, and both records say they met; never lists and answers are
// the participant's own.
func TestEventRound(t *testing.T) {
	s := startServer(t)
	c := client.New(s.URL)
	ctx := context.Background()
	created, err := c.CreateEvent(ctx, &cupidv1.CreateEventRequest{Id: "mixer", Name: "Mixer", Settings: &cupidv1.EventSettings{Rooms: 2, MinLobby: 2}})
	if err != nil {
		t.Fatal(err)
	}
	ev := c.Event(created.GetId())
	for _, p := range []string{"ann", "bob", "cat"} {
		if _, err := ev.Join(ctx, p, ""); err != nil {
			t.Fatal(err)
		}
	}
	if never, err := ev.AddNever(ctx, "cat", "ann"); err != nil || !slices.Equal(never, []string{"ann"}) {
		t.Fatalf("AddNever: %v %v", never, err)
	}
	if never, err := ev.GetNeverList(ctx, "ann"); err != nil || len(never) != 0 {
		t.Fatalf("ann's never list: %v %v", never, err)
	}
	for _, p := range []string{"ann", "bob"} {
		if _, err := ev.EnterLobby(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if round, err := ev.StartRound(ctx); err != nil || round.GetRound() != 1 {
		t.Fatalf("StartRound: %v %v", round, err)
	}
	now, err := ev.Get(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(now.GetPairs()) != 1 || now.GetPhase() != "round" {
		t.Fatalf("after StartRound: %d pairs in phase %s, want 1 in round (%v)", len(now.GetPairs()), now.GetPhase(), now)
	}
	if err := ev.Answer(ctx, "ann", "bob", true); err != nil {
		t.Fatal(err)
	}
	if _, err := ev.EndRound(ctx); err != nil {
		t.Fatal(err)
	}
	graph, err := ev.MetGraph(ctx)
	if err != nil || len(graph.GetEdges()) != 2 {
		t.Fatalf("MetGraph: %v %v, want ann and bob's two records", graph, err)
	}
	rounds, more, err := ev.GetRounds(ctx, 0, 10)
	if err != nil || len(rounds) != 1 || more {
		t.Fatalf("GetRounds: %v %v %v", rounds, more, err)
	}
	events, err := c.ListEvents(ctx)
	if err != nil || len(events) != 1 || events[0].GetId() != "mixer" {
		t.Fatalf("ListEvents: %v %v", events, err)
	}
	if err := ev.Delete(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := ev.Get(ctx); connect.CodeOf(err) != connect.CodeNotFound {
		t.Fatalf("Get after Delete: %v, want not_found", err)
	}
}

// TestLowPriority: the mark set through the client is read back and
// cleared.
func TestLowPriority(t *testing.T) {
	s := startServer(t)
	c := client.New(s.URL)
	ctx := context.Background()
	lp, err := c.SetLowPriority(ctx, "alice", time.Hour, 3, "left early")
	if err != nil || lp.GetGames() != 3 {
		t.Fatalf("SetLowPriority: %v %v", lp, err)
	}
	got, err := c.GetPlayerRatings(ctx, "alice")
	if err != nil || got.GetLowPriority().GetReason() != "left early" {
		t.Fatalf("GetPlayerRatings: %v %v", got, err)
	}
	if err := c.ClearLowPriority(ctx, "alice"); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.GetPlayerRatings(ctx, "alice"); got.GetLowPriority() != nil {
		t.Fatalf("still marked: %v", got.GetLowPriority())
	}
	history, err := c.ListRatingHistory(ctx, "alice", "ranked", 0, 10)
	if err != nil || len(history) != 0 {
		t.Fatalf("ListRatingHistory of a player without games: %v %v", history, err)
	}
}
