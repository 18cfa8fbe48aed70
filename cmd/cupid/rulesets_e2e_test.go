package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// clockServer runs a server whose queues come from AccelByte's example rulesets in
// ruleset/testdata, on a clock the test moves.
type clockServer struct {
	*testServer
	clock *testclock.Clock
	mm    *ticketsvc.Service
	c     cupidv1connect.TicketServiceClient
}

func startClockServer(t *testing.T, queues map[string]string) *clockServer {
	t.Helper()
	var b strings.Builder
	b.WriteString("queues:\n")
	for name, file := range queues {
		abs, err := filepath.Abs(filepath.Join("..", "..", "ruleset", "testdata", "accelbyte", file))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "  - name: %s\n    ruleset_file: %s\n    ticket_ttl: 1h\n", name, abs)
	}
	cfg := filepath.Join(t.TempDir(), "cupid.yaml")
	if err := os.WriteFile(cfg, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := &clockServer{clock: testclock.At(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))}
	started := make(chan *ticketsvc.Service, 1)
	cs.testServer = startServer(t, serveFlags{config: cfg, hooks: &serveHooks{
		now:     cs.clock.Now,
		started: func(mm *ticketsvc.Service) { started <- mm },
	}})
	cs.mm = <-started
	cs.c = cs.connectClient()
	return cs
}

// wait moves the clock and lets every pool look at the new time.
func (cs *clockServer) wait(d time.Duration) {
	cs.clock.Advance(d)
	cs.mm.Wake()
}

type tk struct {
	id         string
	attrs      map[string]any
	latencies  map[string]int32
	ticketAttr map[string]any
}

func (cs *clockServer) create(t *testing.T, queue string, p tk) string {
	t.Helper()
	attrs, err := structpb.NewStruct(p.attrs)
	if err != nil {
		t.Fatal(err)
	}
	tattrs, err := structpb.NewStruct(p.ticketAttr)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.c.CreateTicket(context.Background(), connect.NewRequest(&cupidv1.CreateTicketRequest{
		Queue: queue, Latencies: p.latencies, Attributes: tattrs.GetFields(),
		Players: []*cupidv1.Player{{Id: p.id, Attributes: attrs.GetFields()}},
	}))
	if err != nil {
		t.Fatalf("create %s: %v", p.id, err)
	}
	return res.Msg.GetTicket().GetId()
}

func (cs *clockServer) state(t *testing.T, id string) *cupidv1.Ticket {
	t.Helper()
	res, err := cs.c.GetTicket(context.Background(), connect.NewRequest(&cupidv1.GetTicketRequest{Id: id}))
	if err != nil {
		t.Fatal(err)
	}
	return res.Msg.GetTicket()
}

// teamsOf waits for the ticket's match and returns its teams as player ids.
func (cs *clockServer) teamsOf(t *testing.T, id string) [][]string {
	t.Helper()
	ev := waitFinal(t, cs.c, id, 0)
	if ev.GetKind() != "matched" {
		t.Fatalf("ticket %s ended %s, want matched", id, ev.GetKind())
	}
	var teams [][]string
	for _, team := range ev.GetMatch().GetTeams() {
		teams = append(teams, team.GetPlayerIds())
	}
	return teams
}

// TestAccelByteTeamEightVersusEight: two teams, at least four and at most
// eight players each. Tickets arrive one by one and the engine streams, so
// a match starts as soon as four a side are there; a ruleset that wants to
// hold out for fuller teams starts at eight and flexes down
// (alliance_flexing_rule), as AccelByte's rulesets recommend.
func TestAccelByteTeamEightVersusEight(t *testing.T) {
	cs := startClockServer(t, map[string]string{"8v8": "15_team_8v8.json"})
	var ids []string
	for i := 0; i < 16; i++ {
		ids = append(ids, cs.create(t, "8v8", tk{id: fmt.Sprintf("p%02d", i)}))
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		teams := cs.teamsOf(t, id)
		if len(teams) != 2 || len(teams[0]) != len(teams[1]) || len(teams[0]) < 4 || len(teams[0]) > 8 {
			t.Fatalf("teams %v, want two equal teams of four to eight", teams)
		}
		for _, team := range teams {
			for _, p := range team {
				seen[ids[atoi(p[1:])]] = true
			}
		}
	}
	if len(seen) != 16 {
		t.Fatalf("%d of 16 tickets matched", len(seen))
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

func TestAccelByteCoopLevelAndRating(t *testing.T) {
	cs := startClockServer(t, map[string]string{"coop": "16_coop_level_rating.json"})
	in := []tk{
		{id: "a", attrs: map[string]any{"level": 10, "rating": 100}},
		{id: "b", attrs: map[string]any{"level": 11, "rating": 110}},
		{id: "c", attrs: map[string]any{"level": 12, "rating": 95}},
		{id: "far-level", attrs: map[string]any{"level": 15, "rating": 100}},
		{id: "far-rating", attrs: map[string]any{"level": 10, "rating": 150}},
		{id: "d", attrs: map[string]any{"level": 9, "rating": 118}},
	}
	ids := map[string]string{}
	for _, p := range in {
		ids[p.id] = cs.create(t, "coop", p)
	}
	teams := cs.teamsOf(t, ids["a"])
	if len(teams) != 1 || len(teams[0]) != 4 {
		t.Fatalf("teams %v, want one team of four", teams)
	}
	got := strings.Join(sorted(teams[0]), ",")
	if got != "a,b,c,d" {
		t.Fatalf("co-op team %s, want a,b,c,d (within 2 levels and 20 rating of the pivot)", got)
	}
	for _, out := range []string{"far-level", "far-rating"} {
		tkt := cs.state(t, ids[out])
		if tkt.GetState() != cupidv1.TicketState_TICKET_STATE_WAITING {
			t.Fatalf("%s is %v, want waiting", out, tkt.GetState())
		}
		if tkt.GetWhy().GetSummary() == "" {
			t.Fatalf("%s waits without a reason", out)
		}
	}
}

func TestAccelByteFreeForAllWithMMRFlexing(t *testing.T) {
	cs := startClockServer(t, map[string]string{"ffa": "17_ffa_mmr_flexing.json"})
	// The pivot (mmr 1000) waits alone for 40 s, then 24 players with mmr
	// 1020…1480 arrive. Within 400 of the pivot only 20 of them fit, and
	// the newcomers, still at ±200, cannot gather 25 around any of them:
	// the match forms when the pivot has waited 45 s and allows ±500.
	first := cs.create(t, "ffa", tk{id: "pivot", attrs: map[string]any{"mmr": 1000}})
	cs.wait(40 * time.Second)
	for i := 1; i < 25; i++ {
		cs.create(t, "ffa", tk{id: fmt.Sprintf("ffa%02d", i), attrs: map[string]any{"mmr": 1000 + 20*i}})
	}
	cs.wait(4 * time.Second)
	tkt := cs.state(t, first)
	if st := tkt.GetState(); st != cupidv1.TicketState_TICKET_STATE_WAITING {
		t.Fatalf("matched before the 45 s flexing step (state %v)", st)
	}
	why := tkt.GetWhy()
	if why.GetNextRelaxation() == nil || !why.GetNextRelaxation().AsTime().Equal(cs.clock.Now().Add(time.Second)) {
		t.Fatalf("at 44 s the next relaxation should be in 1 s, got %v (%s)", why.GetNextRelaxation(), why.GetSummary())
	}
	cs.wait(time.Second)
	teams := cs.teamsOf(t, first)
	if len(teams) != 1 || len(teams[0]) != 25 {
		t.Fatalf("teams %v, want one team of 25", teams)
	}
}

func TestAccelByteCrossPlay(t *testing.T) {
	cs := startClockServer(t, map[string]string{"xplay": "18_crossplay.json"})
	var pcxbox []string
	for i := 0; i < 8; i++ {
		pcxbox = append(pcxbox, cs.create(t, "xplay", tk{id: fmt.Sprintf("pc%d", i), ticketAttr: map[string]any{"cross_platform": []any{"pc", "xbox"}}}))
	}
	ps := cs.create(t, "xplay", tk{id: "ps", ticketAttr: map[string]any{"cross_platform": []any{"ps5"}}})
	teams := cs.teamsOf(t, pcxbox[0])
	if len(teams) != 2 || len(teams[0]) != 4 || len(teams[1]) != 4 {
		t.Fatalf("teams %v, want 4v4", teams)
	}
	for _, team := range teams {
		for _, p := range team {
			if p == "ps" {
				t.Fatal("a player with other cross-play platforms joined the match")
			}
		}
	}
	if st := cs.state(t, ps).GetState(); st != cupidv1.TicketState_TICKET_STATE_WAITING {
		t.Fatalf("ps is %v, want waiting", st)
	}
}

func TestAccelByteRegionExpansionWalkthrough(t *testing.T) {
	cs := startClockServer(t, map[string]string{"regions": "10_bidirectional.json"})
	p1 := cs.create(t, "regions", tk{id: "player1", latencies: map[string]int32{
		"us-east-1": 50, "us-east-2": 50, "us-west-2": 80, "eu-west-1": 100, "eu-central-1": 102, "ap-southeast-1": 200}})
	cs.create(t, "regions", tk{id: "player2", latencies: map[string]int32{
		"us-east-1": 150, "us-east-2": 100, "us-west-2": 122, "eu-west-1": 30, "eu-central-1": 55, "ap-southeast-1": 200}})
	// Range 30 ms at first, 80 ms after 10 s, 130 ms after 20 s: only then
	// does player 1 reach eu-west-1, where player 2 already is.
	for i := 0; i < 2; i++ {
		cs.wait(10*time.Second - time.Millisecond)
		if st := cs.state(t, p1).GetState(); st != cupidv1.TicketState_TICKET_STATE_WAITING {
			t.Fatalf("matched at expansion %d, before player 1 reaches Europe", i)
		}
		cs.wait(time.Millisecond)
	}
	teams := cs.teamsOf(t, p1)
	if len(teams) != 2 {
		t.Fatalf("teams %v, want 1v1", teams)
	}
}

func TestRulesetReplacementKeepsTicketsWaiting(t *testing.T) {
	cs := startClockServer(t, map[string]string{"coop": "16_coop_level_rating.json"})
	rc := cupidv1connect.NewRulesetServiceClient(http2Default(), cs.url)
	ids := []string{
		cs.create(t, "coop", tk{id: "a", attrs: map[string]any{"level": 1, "rating": 0}}),
		cs.create(t, "coop", tk{id: "b", attrs: map[string]any{"level": 30, "rating": 0}}),
	}
	bad := `{"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 3, "player_max_number": 2},}`
	v, err := rc.ValidateRuleset(context.Background(), connect.NewRequest(&cupidv1.ValidateRulesetRequest{Ruleset: bad}))
	if err != nil {
		t.Fatal(err)
	}
	if v.Msg.GetValid() || len(v.Msg.GetProblems()) == 0 || v.Msg.GetProblems()[0].GetLine() != 1 {
		t.Fatalf("validation of a malformed ruleset: %v", v.Msg)
	}
	if _, err := rc.PutRuleset(context.Background(), connect.NewRequest(&cupidv1.PutRulesetRequest{Queue: "coop", Ruleset: bad})); connect.CodeOf(err) != connect.CodeInvalidArgument {
		t.Fatalf("put of a bad ruleset: %v, want invalid_argument", err)
	}
	cur, err := rc.GetRuleset(context.Background(), connect.NewRequest(&cupidv1.GetRulesetRequest{Queue: "coop"}))
	if err != nil || cur.Msg.GetVersion() != 1 {
		t.Fatalf("after a refused put: version %d, err %v; want 1", cur.Msg.GetVersion(), err)
	}
	duo := `{"alliance": {"min_number": 1, "max_number": 1, "player_min_number": 2, "player_max_number": 2},
	         "matching_rule": [{"attribute": "level", "criteria": "distance", "reference": 50}]}`
	put, err := rc.PutRuleset(context.Background(), connect.NewRequest(&cupidv1.PutRulesetRequest{Queue: "coop", Ruleset: duo, ExpectedVersion: 1}))
	if err != nil || put.Msg.GetVersion() != 2 {
		t.Fatalf("put: version %d, err %v; want 2", put.Msg.GetVersion(), err)
	}
	if _, err := rc.PutRuleset(context.Background(), connect.NewRequest(&cupidv1.PutRulesetRequest{Queue: "coop", Ruleset: duo, ExpectedVersion: 1})); connect.CodeOf(err) != connect.CodeFailedPrecondition {
		t.Fatalf("stale expected_version: %v, want failed_precondition", err)
	}
	// The two tickets waited under the old rules (too far apart in level);
	// the new ruleset lets them meet without either being re-created.
	teams := cs.teamsOf(t, ids[0])
	if len(teams) != 1 || len(teams[0]) != 2 {
		t.Fatalf("teams %v, want one team of two", teams)
	}
}

func http2Default() connect.HTTPClient { return h2cClient() }

func sorted(ss []string) []string {
	out := append([]string(nil), ss...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// TestRulesetPrecedenceIsVisible: a ruleset replaced at run time wins over
// the file across a restart while the file's ruleset is unchanged, and the
// file wins once it changes; config check --data says which, queue by
// queue, as serve will decide.
func TestRulesetPrecedenceIsVisible(t *testing.T) {
	const head = "queues:\n  - name: duel\n    ruleset:\n      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}\n"
	cfg := writeConfig(t, head+"      matching_rule: [{attribute: mmr, criteria: distance, reference: 100}]\n")
	data := t.TempDir()
	s := startServer(t, serveFlags{config: cfg, data: data})
	replaced := `{"alliance":{"min_number":2,"max_number":2,"player_min_number":1,"player_max_number":1},"matching_rule":[{"attribute":"mmr","criteria":"distance","reference":900}]}`
	body, _ := json.Marshal(map[string]string{"queue": "duel", "ruleset": replaced})
	postOK(t, s.url, "/cupid.v1.RulesetService/PutRuleset", string(body))
	s.stop()

	out, err := run("config", "check", "--data", data, cfg)
	if err != nil || !strings.Contains(out, "queues[duel]: the ruleset replaced at run time (version 2) is used over the configuration's, which has not changed since") {
		t.Fatalf("config check, file unchanged: %v\n%s", err, out)
	}
	s = startServer(t, serveFlags{config: cfg, data: data})
	if got := postOK(t, s.url, "/cupid.v1.RulesetService/GetRuleset", `{"queue":"duel"}`); !strings.Contains(string(got), `\"reference\":900`) {
		t.Fatalf("after a restart on the same file: %s, want the replacement", got)
	}
	s.stop()

	// The file's ruleset changes: the file wins, and both say so.
	if err := os.WriteFile(cfg, []byte(head+"      matching_rule: [{attribute: mmr, criteria: distance, reference: 250}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = run("config", "check", "--data", data, cfg)
	if err != nil || !strings.Contains(out, "queues[duel]: the configuration's ruleset is used: it changed after the run-time replacement (version 2)") {
		t.Fatalf("config check, file changed: %v\n%s", err, out)
	}
	s = startServer(t, serveFlags{config: cfg, data: data})
	if got := postOK(t, s.url, "/cupid.v1.RulesetService/GetRuleset", `{"queue":"duel"}`); !strings.Contains(string(got), `\"reference\":250`) {
		t.Fatalf("after the file changed: %s, want the file's", got)
	}
}
