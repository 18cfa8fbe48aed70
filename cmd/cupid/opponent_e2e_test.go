package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
)

// opponentConfig has two finders: arena (stored, scanned, a hard league
// label, a guild the quality expression reads, small sizing sample) and
// practice (updates only, fake opponents when nothing real fits).
const opponentConfig = `
opponents:
  - name: arena
    seed: 7
    player_cache_size: 1000
    min_mmr: 0
    max_mmr: 3000
    mmr_bucket_count: 30
    bucket_initial_size: 64
    player_ignore_update_insert_threshold: never
    player_remove_after_candidate_offer_threshold: never
    attributes:
      - {name: league, type: string}
      - {name: guild, type: string}
    query_attributes:
      - {name: league, type: string}
      - {name: guild, type: string}
      - {name: rivals, type: strings}
    strategies:
      - {name: league, kind: distinct, hard: true, attribute: league}
    quality:
      filter: player.guild != query.guild
      score: "300 - abs(query.mmr - player.mmr) + (player.guild in query.rivals ? 100 : 0)"
    scan: {enabled: true, tick: 50ms, min_fetch: 2, max_fetch: 100}
    sizing: {min_samples: 3}
  - name: practice
    store_players: false
    player_cache_size: 64
    min_mmr: 0
    max_mmr: 3000
    mmr_bucket_count: 1
    player_ignore_update_insert_threshold: never
    player_remove_after_candidate_offer_threshold: never
    fake_opponents: {enabled: true}
`

func writeOpponentConfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cupid.yaml")
	if err := os.WriteFile(path, []byte(opponentConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func (s *testServer) opponents() cupidv1connect.OpponentServiceClient {
	return cupidv1connect.NewOpponentServiceClient(http.DefaultClient, s.url)
}

// opponentsGRPC is a gRPC client whose connection closes before the server
// stops, so the server's graceful shutdown need not wait for it.
func (s *testServer) opponentsGRPC(t *testing.T) cupidv1connect.OpponentServiceClient {
	hc := h2cClient()
	t.Cleanup(hc.CloseIdleConnections)
	return cupidv1connect.NewOpponentServiceClient(hc, s.url, connect.WithGRPC())
}

func labelled(id string, mmr float64, league, guild string) *cupidv1.PlayerModel {
	return &cupidv1.PlayerModel{
		Id:         id,
		Mmr:        mmr,
		Labels:     map[string]*structpb.Value{"league": structpb.NewStringValue(league)},
		Attributes: map[string]*structpb.Value{"guild": structpb.NewStringValue(guild)},
	}
}

func updatePlayer(t *testing.T, c cupidv1connect.OpponentServiceClient, finder, id string, m *cupidv1.PlayerModel) *cupidv1.UpdatePlayerResponse {
	t.Helper()
	res, err := c.UpdatePlayer(context.Background(), connect.NewRequest(&cupidv1.UpdatePlayerRequest{Finder: finder, PlayerId: id, Model: m}))
	if err != nil {
		t.Fatalf("update %s: %v", id, err)
	}
	return res.Msg
}

func findOpponent(t *testing.T, c cupidv1connect.OpponentServiceClient, req *cupidv1.FindOpponentRequest) *cupidv1.FindOpponentResponse {
	t.Helper()
	res, err := c.FindOpponent(context.Background(), connect.NewRequest(req))
	if err != nil {
		t.Fatalf("find opponent: %v", err)
	}
	return res.Msg
}

func finderStats(t *testing.T, c cupidv1connect.OpponentServiceClient, finder string) *cupidv1.FinderStatsResponse {
	t.Helper()
	res, err := c.FinderStats(context.Background(), connect.NewRequest(&cupidv1.FinderStatsRequest{Finder: finder}))
	if err != nil {
		t.Fatal(err)
	}
	return res.Msg
}

// seedArena caches four defenders: near (1510, wolves), rival (1590,
// bears), guildmate (1500, cats) in gold, and silver (1500) in silver.
func seedArena(t *testing.T, c cupidv1connect.OpponentServiceClient) {
	t.Helper()
	for _, m := range []*cupidv1.PlayerModel{
		labelled("near", 1510, "gold", "wolves"),
		labelled("rival", 1590, "gold", "bears"),
		labelled("guildmate", 1500, "gold", "cats"),
		labelled("silver", 1500, "silver", "bears"),
	} {
		if res := updatePlayer(t, c, "arena", m.GetId(), m); res.GetOutcome() != "added" || !res.GetStored() {
			t.Fatalf("update %s: %v, want added and stored", m.GetId(), res)
		}
	}
}

// catAttacker is a gold-league attacker of guild cats with bears as rivals.
func catAttacker() *cupidv1.PlayerModel {
	a := labelled("me", 1520, "gold", "cats")
	a.Attributes["rivals"] = structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{structpb.NewStringValue("bears")}})
	return a
}

func TestOpponentUpdateThenFind(t *testing.T) {
	s := startServer(t, serveFlags{config: writeOpponentConfig(t)})
	c := s.opponents()
	seedArena(t, c)

	// Over gRPC too: the rival scores 300-70+100 = 330, near 290; the
	// guildmate is filtered out and silver is in another league.
	g := s.opponentsGRPC(t)
	res, err := g.FindOpponent(context.Background(), connect.NewRequest(&cupidv1.FindOpponentRequest{
		Finder: "arena", Attacker: catAttacker(), ReturnModel: true,
	}))
	if err != nil {
		t.Fatal(err)
	}
	got := res.Msg
	if got.GetResult() != cupidv1.OpponentResult_OPPONENT_RESULT_SUCCESS || got.GetPlayerId() != "rival" || got.GetScore() != 330 {
		t.Fatalf("find = %v, want SUCCESS rival 330", got)
	}
	m := got.GetModel()
	if m.GetId() != "rival" || m.GetMmr() != 1590 || m.GetLabels()["league"].GetStringValue() != "gold" ||
		m.GetAttributes()["guild"].GetStringValue() != "bears" || len(m.GetAttributes()) != 1 {
		t.Fatalf("model = %v, want rival's with league as a label and guild as an attribute", m)
	}

	// Without return_model the model stays home; excluding the rival
	// leaves near.
	got = findOpponent(t, c, &cupidv1.FindOpponentRequest{Finder: "arena", Attacker: catAttacker(), ExcludedIds: []string{"rival"}})
	if got.GetPlayerId() != "near" || got.GetModel() != nil {
		t.Fatalf("with rival excluded = %v, want near and no model", got)
	}
	// Everyone gold is excluded or filtered out: none found, no fake on
	// this finder.
	got = findOpponent(t, c, &cupidv1.FindOpponentRequest{Finder: "arena", Attacker: catAttacker(), ExcludedIds: []string{"rival", "near"}})
	if got.GetResult() != cupidv1.OpponentResult_OPPONENT_RESULT_NONE_FOUND || got.GetPlayerId() != "" {
		t.Fatalf("all excluded = %v, want NONE_FOUND", got)
	}

	// An update without a model makes the rival ineligible.
	if res := updatePlayer(t, c, "arena", "rival", nil); res.GetOutcome() != "removed" || res.GetRemoved() != 1 {
		t.Fatalf("empty update = %v, want removed", res)
	}
	got = findOpponent(t, c, &cupidv1.FindOpponentRequest{Finder: "arena", Attacker: catAttacker()})
	if got.GetPlayerId() != "near" {
		t.Fatalf("after the rival left = %v, want near", got)
	}

	st := finderStats(t, c, "arena")
	if st.GetPlayers() != 3 || st.GetSuccesses() != 3 || st.GetNoneFound() != 1 || !st.GetScanEnabled() || !st.GetStoresPlayers() {
		t.Fatalf("stats = %v", st)
	}
	body := fetchText(t, s.url+"/metrics")
	for _, series := range []string{
		`cupid_opponent_queries_total{finder="arena",result="success"} 3`,
		`cupid_opponent_cache_players{finder="arena"} 3`,
		`cupid_opponent_query_seconds_count{finder="arena"} 4`,
	} {
		if !strings.Contains(body, series) {
			t.Errorf("/metrics lacks %s", series)
		}
	}
}

func TestOpponentFakeOnlyWhenEnabledAndNothingFits(t *testing.T) {
	s := startServer(t, serveFlags{config: writeOpponentConfig(t)})
	c := s.opponents()
	attacker := &cupidv1.PlayerModel{Id: "me", Mmr: 1000}
	got := findOpponent(t, c, &cupidv1.FindOpponentRequest{Finder: "practice", Attacker: attacker, ReturnModel: true})
	if got.GetResult() != cupidv1.OpponentResult_OPPONENT_RESULT_FAKE_OPPONENT || !strings.HasPrefix(got.GetPlayerId(), "fake:me:") ||
		got.GetModel().GetMmr() != 1000 {
		t.Fatalf("empty practice finder = %v, want a fake at the attacker's MMR", got)
	}
	if res := updatePlayer(t, c, "practice", "team-1", &cupidv1.PlayerModel{Mmr: 990}); res.GetStored() {
		t.Fatalf("practice stored the player: %v", res)
	}
	got = findOpponent(t, c, &cupidv1.FindOpponentRequest{Finder: "practice", Attacker: attacker})
	if got.GetResult() != cupidv1.OpponentResult_OPPONENT_RESULT_SUCCESS || got.GetPlayerId() != "team-1" {
		t.Fatalf("practice with a real player = %v, want SUCCESS team-1", got)
	}
	got = findOpponent(t, c, &cupidv1.FindOpponentRequest{Finder: "practice", Attacker: attacker, ExcludedIds: []string{"team-1"}})
	if got.GetResult() != cupidv1.OpponentResult_OPPONENT_RESULT_FAKE_OPPONENT {
		t.Fatalf("practice with the real one excluded = %v, want a fake", got)
	}
	// Arena has fakes off: an empty league gives none found.
	got = findOpponent(t, c, &cupidv1.FindOpponentRequest{Finder: "arena", Attacker: labelled("me", 1000, "gold", "cats")})
	if got.GetResult() != cupidv1.OpponentResult_OPPONENT_RESULT_NONE_FOUND {
		t.Fatalf("empty arena = %v, want NONE_FOUND", got)
	}
}

// TestOpponentFakeIDsAreRefused: the id of a fake opponent (and any id with
// its prefix) is refused wherever a real player is named, over JSON and
// gRPC, with the field named and the reason given; nothing changes.
func TestOpponentFakeIDsAreRefused(t *testing.T) {
	s := startServer(t, serveFlags{config: writeOpponentConfig(t)})
	c := s.opponents()
	seedArena(t, c)
	fake := findOpponent(t, c, &cupidv1.FindOpponentRequest{Finder: "practice", Attacker: &cupidv1.PlayerModel{Id: "me", Mmr: 1000}})
	if fake.GetResult() != cupidv1.OpponentResult_OPPONENT_RESULT_FAKE_OPPONENT || !strings.HasPrefix(fake.GetPlayerId(), "fake:") {
		t.Fatalf("empty practice finder = %v, want a fake", fake)
	}
	id := fake.GetPlayerId()
	beforeArena, beforePractice := finderStats(t, c, "arena"), finderStats(t, c, "practice")

	const gold = `"labels":{"league":"gold"},"attributes":{"guild":"wolves"}`
	cases := []struct {
		name, procedure, body, field string
	}{
		{"a fake's id as a player's", "UpdatePlayer", `{"finder":"practice","player_id":"` + id + `","model":{"mmr":1000}}`, "player_id"},
		{"the prefix in a stored finder", "UpdatePlayer", `{"finder":"arena","player_id":"fake:ann","model":{"mmr":1500,` + gold + `}}`, "player_id"},
		{"the prefix in model.id", "UpdatePlayer", `{"finder":"arena","model":{"id":"fake:ann","mmr":1500,` + gold + `}}`, "model.id"},
		{"an empty update", "UpdatePlayer", `{"finder":"practice","player_id":"` + id + `"}`, "player_id"},
		{"a fake attacking", "FindOpponent", `{"finder":"practice","attacker":{"id":"` + id + `","mmr":1000}}`, "attacker.id"},
		{"a fake excluded", "FindOpponent", `{"finder":"arena","attacker":{"id":"me","mmr":1500,"labels":{"league":"gold"},"attributes":{"guild":"cats"}},"excluded_ids":["near","` + id + `"]}`,
			"excluded_ids[1]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, out := postOpponent(t, s.url, tc.procedure, tc.body)
			msg, _ := out["message"].(string)
			if status != 400 || out["code"] != "invalid_argument" || !strings.HasPrefix(msg, tc.field+": ") ||
				!strings.Contains(msg, "reserved for the ids of fake opponents") {
				t.Fatalf("answer %d %v, want invalid_argument on %s saying why", status, out, tc.field)
			}
		})
	}
	g := s.opponentsGRPC(t)
	_, err := g.UpdatePlayer(context.Background(), connect.NewRequest(&cupidv1.UpdatePlayerRequest{
		Finder: "practice", PlayerId: id, Model: &cupidv1.PlayerModel{Mmr: 1000}}))
	if connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), "player_id") {
		t.Fatalf("over gRPC: %v, want invalid_argument naming player_id", err)
	}

	afterArena, afterPractice := finderStats(t, c, "arena"), finderStats(t, c, "practice")
	if afterArena.GetPlayers() != beforeArena.GetPlayers() || afterArena.GetInserted() != beforeArena.GetInserted() ||
		afterPractice.GetPlayers() != 0 || afterPractice.GetFakes() != beforePractice.GetFakes() {
		t.Fatalf("refused calls changed a finder: arena %v → %v, practice %v → %v", beforeArena, afterArena, beforePractice, afterPractice)
	}
	// The practice finder still has nobody real: the next query is a fake
	// again, never the refused "player".
	if got := findOpponent(t, c, &cupidv1.FindOpponentRequest{Finder: "practice", Attacker: &cupidv1.PlayerModel{Id: "you", Mmr: 1000}}); got.GetResult() != cupidv1.OpponentResult_OPPONENT_RESULT_FAKE_OPPONENT {
		t.Fatalf("practice after the refusals = %v, want a fake", got)
	}
}

// postOpponent calls an OpponentService procedure with a raw JSON body, as
// curl would.
func postOpponent(t *testing.T, url, procedure, body string) (int, map[string]any) {
	t.Helper()
	status, out, _ := postService(t, url, "OpponentService", procedure, body)
	return status, out
}

func fetchText(t *testing.T, url string) string {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}

func TestOpponentBadInputNamesTheFieldAndChangesNothing(t *testing.T) {
	s := startServer(t, serveFlags{config: writeOpponentConfig(t)})
	c := s.opponents()
	seedArena(t, c)
	const attacker = `"attacker":{"id":"me","mmr":1520,"labels":{"league":"gold"},"attributes":{"guild":"cats"}}`
	cases := []struct {
		name, procedure, body string
		status                int
		code, field           string
	}{
		{"NaN defender MMR", "UpdatePlayer", `{"finder":"arena","player_id":"near","model":{"mmr":"NaN","labels":{"league":"gold"}}}`, 400, "invalid_argument", "model.mmr"},
		{"NaN extra MMR", "UpdatePlayer", `{"finder":"arena","player_id":"near","model":{"mmr":1,"labels":{"league":"gold"},"extra_mmrs":["Infinity"]}}`, 400, "invalid_argument", "model.extra_mmrs"},
		{"label of the wrong type", "UpdatePlayer", `{"finder":"arena","player_id":"near","model":{"mmr":1,"labels":{"league":5}}}`, 400, "invalid_argument", "model.labels.league"},
		{"label missing", "UpdatePlayer", `{"finder":"arena","player_id":"near","model":{"mmr":1}}`, 400, "invalid_argument", "model.attributes.league"},
		{"undeclared attribute", "UpdatePlayer", `{"finder":"arena","player_id":"near","model":{"mmr":1,"labels":{"league":"gold"},"attributes":{"level":3}}}`, 400, "invalid_argument", "model.attributes.level"},
		{"boolean attribute", "UpdatePlayer", `{"finder":"arena","player_id":"near","model":{"mmr":1,"labels":{"league":"gold"},"attributes":{"guild":true}}}`, 400, "invalid_argument", "model.attributes.guild"},
		{"entry label of the wrong type", "UpdatePlayer", `{"finder":"arena","player_id":"near","model":{"entries":[{"mmr":1,"labels":{"league":["gold"]}}]}}`, 400, "invalid_argument", "model.entries[0].labels.league"},
		{"two ids", "UpdatePlayer", `{"finder":"arena","player_id":"near","model":{"id":"far","mmr":1,"labels":{"league":"gold"}}}`, 400, "invalid_argument", "model.id"},
		{"no player id", "UpdatePlayer", `{"finder":"arena","model":{"mmr":1,"labels":{"league":"gold"}}}`, 400, "invalid_argument", "player_id"},
		{"unknown finder update", "UpdatePlayer", `{"finder":"nope","player_id":"near"}`, 404, "not_found", "finder"},
		{"unknown finder query", "FindOpponent", `{"finder":"nope",` + attacker + `}`, 404, "not_found", "finder"},
		{"negative retries", "FindOpponent", `{"finder":"arena","retries":-1,` + attacker + `}`, 400, "invalid_argument", "retries"},
		{"NaN attacker MMR", "FindOpponent", `{"finder":"arena","attacker":{"id":"me","mmr":"NaN","labels":{"league":"gold"}}}`, 400, "invalid_argument", "attacker.mmr"},
		{"attacker label of the wrong type", "FindOpponent", `{"finder":"arena","attacker":{"id":"me","mmr":1,"labels":{"league":2}}}`, 400, "invalid_argument", "attacker.labels.league"},
		{"attacker without the hard label", "FindOpponent", `{"finder":"arena","attacker":{"id":"me","mmr":1}}`, 400, "invalid_argument", "attacker.attributes.league"},
		{"list of numbers", "FindOpponent", `{"finder":"arena","attacker":{"id":"me","mmr":1,"labels":{"league":"gold"},"attributes":{"rivals":[1]}}}`, 400, "invalid_argument", "attacker.attributes.rivals[0]"},
		{"no attacker", "FindOpponent", `{"finder":"arena"}`, 400, "invalid_argument", "attacker"},
		{"attacker without id", "FindOpponent", `{"finder":"arena","attacker":{"mmr":1,"labels":{"league":"gold"}}}`, 400, "invalid_argument", "attacker.id"},
		{"unknown finder stats", "FinderStats", `{"finder":"nope"}`, 404, "not_found", "finder"},
		{"unknown finder rebalance", "Rebalance", `{"finder":"nope"}`, 404, "not_found", "finder"},
		{"malformed JSON", "FindOpponent", `{"finder":"arena",`, 400, "invalid_argument", ""},
	}
	before := finderStats(t, c, "arena")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, out := postOpponent(t, s.url, tc.procedure, tc.body)
			if status != tc.status || out["code"] != tc.code {
				t.Fatalf("answer %d %v, want %d %s", status, out, tc.status, tc.code)
			}
			if msg, _ := out["message"].(string); tc.field != "" && !strings.HasPrefix(msg, tc.field+":") {
				t.Fatalf("message %q does not start with the field %q", msg, tc.field)
			}
		})
	}
	// NaN in an attribute can only come over a binary protocol.
	g := s.opponentsGRPC(t)
	a := catAttacker()
	a.Attributes["guild"] = structpb.NewNumberValue(math.NaN())
	_, err := g.FindOpponent(context.Background(), connect.NewRequest(&cupidv1.FindOpponentRequest{Finder: "arena", Attacker: a}))
	if connect.CodeOf(err) != connect.CodeInvalidArgument || !strings.Contains(err.Error(), "attacker.attributes.guild") {
		t.Fatalf("NaN attribute: %v, want invalid_argument naming attacker.attributes.guild", err)
	}

	after := finderStats(t, c, "arena")
	// The scan re-applies stored rows on its own tick (counted as updates),
	// so compare what bad input could have changed: players, insertions and
	// answered queries.
	if after.GetPlayers() != before.GetPlayers() || after.GetInserted() != before.GetInserted() ||
		after.GetQueries() != before.GetQueries() {
		t.Fatalf("bad input changed the finder: before %v, after %v", before, after)
	}
	// near is still where it was, as stored.
	got := findOpponent(t, c, &cupidv1.FindOpponentRequest{Finder: "arena", Attacker: catAttacker(), ExcludedIds: []string{"rival"}, ReturnModel: true})
	if got.GetPlayerId() != "near" || got.GetModel().GetMmr() != 1510 {
		t.Fatalf("near changed: %v", got)
	}
}

// waitForFinder polls a finder's stats until ok says yes, for at most 10 s: the
// scan runs on its own timer, so the test waits for its visible effect.
func waitForFinder(t *testing.T, c cupidv1connect.OpponentServiceClient, finder string, ok func(*cupidv1.FinderStatsResponse) bool) *cupidv1.FinderStatsResponse {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st := finderStats(t, c, finder)
		if ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: gave up waiting; stats %v", finder, st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestOpponentRestartReloadsSizingAndCache(t *testing.T) {
	cfg := writeOpponentConfig(t)
	s := startServer(t, serveFlags{config: cfg})
	c := s.opponents()
	seedArena(t, c)
	for i := range 6 {
		id := fmt.Sprintf("extra-%d", i)
		updatePlayer(t, c, "arena", id, labelled(id, float64(100+i*500), "gold", "wolves"))
	}
	updatePlayer(t, c, "practice", "team-1", &cupidv1.PlayerModel{Mmr: 990})
	reb, err := c.Rebalance(context.Background(), connect.NewRequest(&cupidv1.RebalanceRequest{Finder: "arena"}))
	if err != nil || !reb.Msg.GetResized() || reb.Msg.GetSamples() < 3 {
		t.Fatalf("rebalance = %v, %v; want a model from the players seen", reb.Msg, err)
	}
	before := finderStats(t, c, "arena")
	s.stop()

	s = startServer(t, serveFlags{data: s.data, config: cfg})
	c = s.opponents()
	// The sizing model is loaded at start, and the cache comes back from
	// the snapshot stored when the server stopped.
	st := finderStats(t, c, "arena")
	if !st.GetHasSizingModel() || st.GetPlayers() != before.GetPlayers() || st.GetCapacity() != before.GetCapacity() {
		t.Fatalf("after the restart: %v, want the sizing model and the %d players cached before", st, before.GetPlayers())
	}
	got := findOpponent(t, c, &cupidv1.FindOpponentRequest{Finder: "arena", Attacker: catAttacker(), ReturnModel: true})
	if got.GetPlayerId() != "rival" || got.GetModel().GetAttributes()["guild"].GetStringValue() != "bears" {
		t.Fatalf("after the restart = %v, want rival as before", got)
	}
	// The practice finder keeps nothing: its cache starts empty.
	if st := finderStats(t, c, "practice"); st.GetPlayers() != 0 {
		t.Fatalf("practice has %d players after the restart, want 0", st.GetPlayers())
	}
	// A player who became ineligible before a restart stays out after it.
	updatePlayer(t, c, "arena", "rival", nil)
	s.stop()
	s = startServer(t, serveFlags{data: s.data, config: cfg})
	c = s.opponents()
	waitForFinder(t, c, "arena", func(st *cupidv1.FinderStatsResponse) bool { return st.GetScanPasses() >= 1 })
	got = findOpponent(t, c, &cupidv1.FindOpponentRequest{Finder: "arena", Attacker: catAttacker()})
	if got.GetPlayerId() != "near" {
		t.Fatalf("after the second restart = %v, want near (rival left)", got)
	}
}

func TestOpponentCurlShapedJSON(t *testing.T) {
	s := startServer(t, serveFlags{config: writeOpponentConfig(t)})
	status, out := postOpponent(t, s.url, "UpdatePlayer",
		`{"finder":"arena","player_id":"ann","model":{"mmr":1510,"labels":{"league":"gold"},"attributes":{"guild":"wolves"}}}`)
	if status != 200 || out["outcome"] != "added" || out["stored"] != true {
		t.Fatalf("update = %d %v", status, out)
	}
	status, out = postOpponent(t, s.url, "FindOpponent",
		`{"finder":"arena","attacker":{"id":"bob","mmr":1500,"labels":{"league":"gold"},"attributes":{"guild":"bears"}},"return_model":true}`)
	model, _ := out["model"].(map[string]any)
	if status != 200 || out["result"] != "OPPONENT_RESULT_SUCCESS" || out["playerId"] != "ann" || model["mmr"] != 1510.0 {
		t.Fatalf("find = %d %v", status, out)
	}
}
