package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
)

// holdConfig has raid (reservations held half an hour, shields of an hour, one
// MMR bucket so every query reaches every defender), quick (reservations
// that lapse after 300ms) and plain (no reservations).
const holdConfig = `
opponents:
  - name: raid
    player_cache_size: 1000
    min_mmr: 0
    max_mmr: 3000
    mmr_bucket_count: 1
    max_candidates: 100
    player_ignore_update_insert_threshold: never
    reservations: {enabled: true, hold: 30m}
    shield: 1h
  - name: quick
    player_cache_size: 100
    min_mmr: 0
    max_mmr: 3000
    mmr_bucket_count: 1
    reservations: {enabled: true, hold: 300ms, always: true}
  - name: plain
    player_cache_size: 100
    min_mmr: 0
    max_mmr: 3000
    mmr_bucket_count: 1
`

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cupid.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func plainModel(mmr float64) *cupidv1.PlayerModel { return &cupidv1.PlayerModel{Mmr: mmr} }

func reserve(ctx context.Context, c cupidv1connect.OpponentServiceClient, finder, attacker string) (*cupidv1.FindOpponentResponse, error) {
	res, err := c.FindOpponent(ctx, connect.NewRequest(&cupidv1.FindOpponentRequest{
		Finder: finder, Reserve: true, Attacker: &cupidv1.PlayerModel{Id: attacker, Mmr: 1500},
	}))
	if err != nil {
		return nil, err
	}
	return res.Msg, nil
}

func mustReserve(t *testing.T, c cupidv1connect.OpponentServiceClient, finder, attacker string) *cupidv1.FindOpponentResponse {
	t.Helper()
	res, err := reserve(context.Background(), c, finder, attacker)
	if err != nil {
		t.Fatalf("reserve for %s: %v", attacker, err)
	}
	return res
}

func wantConnectCode(t *testing.T, err error, code connect.Code, text string) {
	t.Helper()
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != code || !strings.Contains(ce.Message(), text) {
		t.Fatalf("err = %v, want %v containing %q", err, code, text)
	}
}

// TestOpponentReservationsEndToEnd: through the API, 60 attackers racing
// from 12 connections hold 20 defenders between them, each defender once;
// confirming shields, releasing frees, online players are never offered,
// bad calls are refused by field, and everything holds across a restart.
func TestOpponentReservationsEndToEnd(t *testing.T) {
	cfg := writeConfig(t, holdConfig)
	s := startServer(t, serveFlags{config: cfg})
	c := s.opponents()
	ctx := context.Background()
	const defenders = 20
	for i := range defenders {
		updatePlayer(t, c, "raid", fmt.Sprintf("d%02d", i), plainModel(float64(1000+i*50)))
	}

	// Concurrent reservations, over Connect and gRPC clients.
	var mu sync.Mutex
	holder := map[string]string{}
	reservation := map[string]string{} // defender → reservation id
	var wg sync.WaitGroup
	errc := make(chan error, 64)
	for g := range 12 {
		client := c
		if g%2 == 1 {
			client = s.opponentsGRPC(t)
		}
		wg.Go(func() {
			for k := range 5 {
				attacker := fmt.Sprintf("a%02d-%d", g, k)
				res, err := reserve(ctx, client, "raid", attacker)
				if err != nil {
					errc <- err
					return
				}
				if res.GetResult() != cupidv1.OpponentResult_OPPONENT_RESULT_SUCCESS {
					continue
				}
				r := res.GetReservation()
				if r.GetAttackerId() != attacker || r.GetDefenderId() != res.GetPlayerId() || r.GetId() == "" || r.GetExpiresAt() == nil {
					errc <- fmt.Errorf("reservation %v for %s offering %s", r, attacker, res.GetPlayerId())
					return
				}
				mu.Lock()
				if other, dup := holder[res.GetPlayerId()]; dup {
					errc <- fmt.Errorf("%s was offered to both %s and %s", res.GetPlayerId(), other, attacker)
				}
				holder[res.GetPlayerId()] = attacker
				reservation[res.GetPlayerId()] = r.GetId()
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	if len(holder) != defenders {
		t.Fatalf("%d defenders held, want %d", len(holder), defenders)
	}
	if st := finderStats(t, c, "raid"); st.GetHeld() != defenders || st.GetReserved() != defenders {
		t.Fatalf("stats: held %d, reserved %d; want %d", st.GetHeld(), st.GetReserved(), defenders)
	}

	// Confirm d00's attack: shielded for an hour. Release d01: free again.
	conf, err := c.ConfirmAttack(ctx, connect.NewRequest(&cupidv1.ConfirmAttackRequest{
		Finder: "raid", ReservationId: reservation["d00"], AttackerId: holder["d00"]}))
	if err != nil {
		t.Fatal(err)
	}
	if until := conf.Msg.GetShieldUntil().AsTime(); until.Sub(time.Now()) < 59*time.Minute {
		t.Fatalf("shield until %v, want about an hour from now", until)
	}
	if _, err := c.ReleaseReservation(ctx, connect.NewRequest(&cupidv1.ReleaseReservationRequest{
		Finder: "raid", ReservationId: reservation["d01"]})); err != nil {
		t.Fatal(err)
	}
	again := mustReserve(t, c, "raid", "late")
	if again.GetPlayerId() != "d01" {
		t.Fatalf("after the release: %v, want d01", again)
	}
	reservation["d01"] = again.GetReservation().GetId()

	// Bad calls name their field and change nothing.
	_, err = c.ConfirmAttack(ctx, connect.NewRequest(&cupidv1.ConfirmAttackRequest{Finder: "raid", ReservationId: "rsv_nope"}))
	wantConnectCode(t, err, connect.CodeNotFound, "reservation_id")
	_, err = c.ConfirmAttack(ctx, connect.NewRequest(&cupidv1.ConfirmAttackRequest{Finder: "raid", ReservationId: reservation["d00"]}))
	wantConnectCode(t, err, connect.CodeFailedPrecondition, "reservation_id: reservation "+reservation["d00"]+" was confirmed")
	_, err = c.ReleaseReservation(ctx, connect.NewRequest(&cupidv1.ReleaseReservationRequest{Finder: "raid"}))
	wantConnectCode(t, err, connect.CodeInvalidArgument, "reservation_id: is required")
	_, err = c.ConfirmAttack(ctx, connect.NewRequest(&cupidv1.ConfirmAttackRequest{Finder: "raid", ReservationId: reservation["d02"], AttackerId: "mallory"}))
	wantConnectCode(t, err, connect.CodePermissionDenied, "attacker_id")
	_, err = reserve(ctx, c, "plain", "bob")
	wantConnectCode(t, err, connect.CodeFailedPrecondition, "reserve: this finder does not take reservations")
	_, err = c.ConfirmAttack(ctx, connect.NewRequest(&cupidv1.ConfirmAttackRequest{Finder: "plain", ReservationId: reservation["d02"]}))
	wantConnectCode(t, err, connect.CodeFailedPrecondition, "finder")
	if st := finderStats(t, c, "raid"); st.GetHeld() != defenders-1 || st.GetShielded() != 1 || st.GetConfirmed() != 1 || st.GetReleased() != 1 {
		t.Fatalf("stats after the bad calls: %v", st)
	}

	// Online players are never offered.
	updatePlayer(t, c, "raid", "gamer", plainModel(1500))
	if _, err := c.SetPlayerOnline(ctx, connect.NewRequest(&cupidv1.SetPlayerOnlineRequest{Finder: "raid", PlayerId: "gamer", Online: true})); err != nil {
		t.Fatal(err)
	}
	if res := mustReserve(t, c, "raid", "x"); res.GetResult() != cupidv1.OpponentResult_OPPONENT_RESULT_NONE_FOUND {
		t.Fatalf("with everybody held, shielded or online: %v", res)
	}

	// Restart on the same SQLite file: holds, shields and flags stay.
	s.stop()
	s = startServer(t, serveFlags{data: s.data, config: cfg})
	c = s.opponents()
	// 21 players less d00, whose confirmed attack took him out of the cache
	// (the offer-removal threshold is "always").
	st := finderStats(t, c, "raid")
	if st.GetHeld() != defenders-1 || st.GetShielded() != 1 || st.GetOnline() != 1 || st.GetPlayers() != defenders {
		t.Fatalf("after the restart: held %d, shielded %d, online %d, players %d", st.GetHeld(), st.GetShielded(), st.GetOnline(), st.GetPlayers())
	}
	if res := mustReserve(t, c, "raid", "y"); res.GetResult() != cupidv1.OpponentResult_OPPONENT_RESULT_NONE_FOUND {
		t.Fatalf("after the restart someone unavailable was offered: %v", res)
	}
	if _, err := c.ConfirmAttack(ctx, connect.NewRequest(&cupidv1.ConfirmAttackRequest{
		Finder: "raid", ReservationId: reservation["d03"], AttackerId: holder["d03"]})); err != nil {
		t.Fatalf("confirming a reservation made before the restart: %v", err)
	}
	if _, err := c.SetPlayerOnline(ctx, connect.NewRequest(&cupidv1.SetPlayerOnlineRequest{Finder: "raid", PlayerId: "gamer"})); err != nil {
		t.Fatal(err)
	}
	if res := mustReserve(t, c, "raid", "z"); res.GetPlayerId() != "gamer" {
		t.Fatalf("once offline: %v, want gamer", res)
	}
}

// TestOpponentReservationsLapse: a reservation not confirmed in time
// lapses; the defender is offered again and the late confirmation is a
// failed precondition.
func TestOpponentReservationsLapse(t *testing.T) {
	s := startServer(t, serveFlags{config: writeConfig(t, holdConfig)})
	c := s.opponents()
	updatePlayer(t, c, "quick", "ann", plainModel(1500))
	// quick reserves every offer (always), asked or not.
	first := findOpponent(t, c, &cupidv1.FindOpponentRequest{Finder: "quick", Attacker: &cupidv1.PlayerModel{Id: "bob", Mmr: 1500}})
	if first.GetReservation() == nil || first.GetPlayerId() != "ann" {
		t.Fatalf("first query = %v, want ann reserved", first)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		res := findOpponent(t, c, &cupidv1.FindOpponentRequest{Finder: "quick", Attacker: &cupidv1.PlayerModel{Id: "cid", Mmr: 1500}})
		if res.GetPlayerId() == "ann" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the reservation did not lapse within 20s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	_, err := c.ConfirmAttack(context.Background(), connect.NewRequest(&cupidv1.ConfirmAttackRequest{
		Finder: "quick", ReservationId: first.GetReservation().GetId(), AttackerId: "bob"}))
	wantConnectCode(t, err, connect.CodeFailedPrecondition, "expired at")
}

// TestOpponentRestartRestoresEntries: a cache with several entries per
// player comes back from a restart on the same SQLite file exactly as it
// was: the same buckets, sizes and entries.
func TestOpponentRestartRestoresEntries(t *testing.T) {
	cfg := writeConfig(t, `
opponents:
  - name: teams
    player_cache_size: 300
    min_mmr: 0
    max_mmr: 3000
    mmr_bucket_count: 30
    bucket_initial_size: 16
    allow_multiple_entries_per_player: true
    return_model: true
    attributes: [{name: hero, type: string}]
    scan: {enabled: true, tick: 1h}
`)
	s := startServer(t, serveFlags{config: cfg})
	c := s.opponents()
	for i := range 200 {
		m := &cupidv1.PlayerModel{Mmr: float64(i * 15 % 3000), ExtraMmrs: []float64{float64((i*37 + 700) % 3000), float64((i*91 + 1900) % 3000)},
			Attributes: map[string]*structpb.Value{"hero": structpb.NewStringValue(fmt.Sprintf("h%d", i%7))}}
		updatePlayer(t, c, "teams", fmt.Sprintf("p%03d", i), m)
	}
	stats := func() *cupidv1.FinderStatsResponse {
		res, err := c.FinderStats(context.Background(), connect.NewRequest(&cupidv1.FinderStatsRequest{Finder: "teams", IncludeBuckets: true}))
		if err != nil {
			t.Fatal(err)
		}
		return res.Msg
	}
	before := stats()
	if before.GetEntries() <= before.GetPlayers() {
		t.Fatalf("%d entries of %d players: no player kept several", before.GetEntries(), before.GetPlayers())
	}
	s.stop()
	s = startServer(t, serveFlags{data: s.data, config: cfg})
	c = s.opponents()
	after := stats()
	if after.GetEntries() != before.GetEntries() || after.GetPlayers() != before.GetPlayers() || after.GetCapacity() != before.GetCapacity() {
		t.Fatalf("after the restart: %d entries of %d players in %d slots; before %d of %d in %d",
			after.GetEntries(), after.GetPlayers(), after.GetCapacity(), before.GetEntries(), before.GetPlayers(), before.GetCapacity())
	}
	if len(after.GetBucketFill()) != len(before.GetBucketFill()) {
		t.Fatalf("%d buckets after, %d before", len(after.GetBucketFill()), len(before.GetBucketFill()))
	}
	for i, b := range before.GetBucketFill() {
		a := after.GetBucketFill()[i]
		if a.GetKey() != b.GetKey() || a.GetSize() != b.GetSize() || a.GetEntries() != b.GetEntries() {
			t.Fatalf("bucket %d after the restart %v, before %v", i, a, b)
		}
	}
	if after.GetScannedRows() != 0 {
		t.Fatalf("the scan ran (%d rows) although the cache came from the snapshot", after.GetScannedRows())
	}
}

// TestOpponentReservationsUnderAuth: a player token confirms and releases
// only his own reservations and sets only his own online flag.
func TestOpponentReservationsUnderAuth(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("keys.yaml", "server_keys:\n"+keyLine("game", "cupid_sk_game", "opponents")+keyLine("lobby", "cupid_sk_events", "events"))
	write("hs.secret", authSecret+"\n")
	write("cupid.yaml", strings.Replace(holdConfig, "  - name: raid\n", "  - name: raid\n    players_may_update: true\n", 1)+`auth:
  server_keys_file: keys.yaml
  player_tokens: {audience: cupid, hs256_secret_file: hs.secret}
`)
	s := startServer(t, serveFlags{config: filepath.Join(dir, "cupid.yaml")})
	ctx := context.Background()
	game, lobby := s.as("cupid_sk_game"), s.as("cupid_sk_events")
	bob, eve := s.as(playerToken(t, "bob")), s.as(playerToken(t, "eve"))
	updatePlayer(t, game.opponents, "raid", "ann", plainModel(1500))
	updatePlayer(t, game.opponents, "raid", "dan", plainModel(1600))

	res := mustReserve(t, bob.opponents, "raid", "bob")
	id := res.GetReservation().GetId()
	_, err := eve.opponents.ConfirmAttack(ctx, connect.NewRequest(&cupidv1.ConfirmAttackRequest{Finder: "raid", ReservationId: id, AttackerId: "bob"}))
	wantAuthCode(t, err, connect.CodePermissionDenied, "the token's player eve may confirm or release only reservations he holds")
	_, err = eve.opponents.ReleaseReservation(ctx, connect.NewRequest(&cupidv1.ReleaseReservationRequest{Finder: "raid", ReservationId: id, AttackerId: "eve"}))
	wantAuthCode(t, err, connect.CodePermissionDenied, "reservation "+id+" is held for attacker bob, not eve")
	_, err = lobby.opponents.ConfirmAttack(ctx, connect.NewRequest(&cupidv1.ConfirmAttackRequest{Finder: "raid", ReservationId: id}))
	wantAuthCode(t, err, connect.CodePermissionDenied, "needs the opponents scope")
	if _, err := bob.opponents.ConfirmAttack(ctx, connect.NewRequest(&cupidv1.ConfirmAttackRequest{Finder: "raid", ReservationId: id, AttackerId: "bob"})); err != nil {
		t.Fatalf("bob confirming his own: %v", err)
	}
	// A server key may release any reservation, naming no attacker.
	other := mustReserve(t, eve.opponents, "raid", "eve")
	if _, err := game.opponents.ReleaseReservation(ctx, connect.NewRequest(&cupidv1.ReleaseReservationRequest{Finder: "raid", ReservationId: other.GetReservation().GetId()})); err != nil {
		t.Fatalf("the game server releasing: %v", err)
	}
	// Online flags: his own, in a finder that lets players update.
	if _, err := bob.opponents.SetPlayerOnline(ctx, connect.NewRequest(&cupidv1.SetPlayerOnlineRequest{Finder: "raid", PlayerId: "bob", Online: true})); err != nil {
		t.Fatal(err)
	}
	_, err = bob.opponents.SetPlayerOnline(ctx, connect.NewRequest(&cupidv1.SetPlayerOnlineRequest{Finder: "raid", PlayerId: "ann", Online: true}))
	wantAuthCode(t, err, connect.CodePermissionDenied, "may set only his own online flag")
	_, err = bob.opponents.SetPlayerOnline(ctx, connect.NewRequest(&cupidv1.SetPlayerOnlineRequest{Finder: "quick", PlayerId: "bob", Online: true}))
	wantAuthCode(t, err, connect.CodePermissionDenied, "does not let players set their own online flag")
}
