package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/coder/websocket"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
	"github.com/cupid-match/cupid/graph/matching"
)

// These tests run speed-dating events through the real server: Connect
// calls for everything an organiser and participants do, and the event
// streams (gRPC, Connect and WebSocket) for what they are told. Rounds run
// on the server's real clock with millisecond settings, and the tests
// synchronise on what the streams say, never on sleeps: every check is on
// data that does not depend on how fast the machine is.

// pairingClient speaks Connect (protobuf over HTTP/1.1) to the server.
func pairingClient(s *testServer) cupidv1connect.PairingServiceClient {
	return cupidv1connect.NewPairingServiceClient(http.DefaultClient, s.url)
}

// pairingGRPC speaks gRPC (HTTP/2 without TLS) to the server.
func pairingGRPC(s *testServer) cupidv1connect.PairingServiceClient {
	return cupidv1connect.NewPairingServiceClient(h2cClient(), s.url, connect.WithGRPC())
}

// noteStream collects the notifications of one WatchEvent stream.
type noteStream struct {
	ch   chan *cupidv1.PairingNotification
	errc chan error
}

// watchPairing starts watching an event and returns once the server has
// sent its first message ("watching"), from which on nothing is missed.
func watchPairing(t *testing.T, c cupidv1connect.PairingServiceClient, eventID, participant string) (*noteStream, *cupidv1.PairingNotification) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	stream, err := c.WatchEvent(ctx, connect.NewRequest(&cupidv1.WatchEventRequest{EventId: eventID, Participant: participant}))
	if err != nil {
		t.Fatal(err)
	}
	ns := &noteStream{ch: make(chan *cupidv1.PairingNotification, 1<<17), errc: make(chan error, 1)}
	go func() {
		defer stream.Close()
		for stream.Receive() {
			ns.ch <- stream.Msg()
		}
		ns.errc <- stream.Err()
	}()
	first := ns.next(t)
	if first.GetKind() != "watching" {
		t.Fatalf("first message %v, want watching", first)
	}
	return ns, first
}

// next returns the next notification. The timeout only keeps a broken
// server from hanging the test; no check depends on it.
func (ns *noteStream) next(t *testing.T) *cupidv1.PairingNotification {
	t.Helper()
	select {
	case n := <-ns.ch:
		return n
	case err := <-ns.errc:
		// The stream's last messages were queued before it ended.
		select {
		case n := <-ns.ch:
			ns.errc <- err
			return n
		default:
		}
		t.Fatalf("stream ended: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("no notification within 30s")
	}
	return nil
}

// until returns the next notification of a kind, skipping others.
func (ns *noteStream) until(t *testing.T, kind string) *cupidv1.PairingNotification {
	t.Helper()
	for {
		if n := ns.next(t); n.GetKind() == kind {
			return n
		}
	}
}

// createPairingEvent creates an event, trying again while the node that
// runs the events answers unavailable (it has just taken the lease and is
// loading them), as a client does.
func createPairingEvent(t *testing.T, c cupidv1connect.PairingServiceClient, req *cupidv1.CreateEventRequest) *cupidv1.Event {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for retried := false; ; retried = true {
		res, err := c.CreateEvent(context.Background(), connect.NewRequest(req))
		if err == nil {
			return res.Msg.GetEvent()
		}
		if retried && req.GetId() != "" && (connect.CodeOf(err) == connect.CodeFailedPrecondition || connect.CodeOf(err) == connect.CodeAlreadyExists) {
			// An unavailable answer may come after the event was stored
			// (the node gave the events up just then): it is there.
			return getPairingEvent(t, c, req.GetId())
		}
		if connect.CodeOf(err) != connect.CodeUnavailable || time.Now().After(deadline) {
			t.Fatalf("create event: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// participantCall is one of the participant procedures of the client.
type participantCall func(context.Context, *connect.Request[cupidv1.ParticipantRequest]) (*connect.Response[cupidv1.ParticipantResponse], error)

// mustCall calls a participant procedure, trying again while the events
// are moving between nodes (unavailable), as a client does.
func mustCall(t *testing.T, call participantCall, eventID, key string) *cupidv1.ParticipantResponse {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := call(context.Background(), connect.NewRequest(&cupidv1.ParticipantRequest{EventId: eventID, Participant: key}))
		if err == nil {
			return res.Msg
		}
		if connect.CodeOf(err) != connect.CodeUnavailable || time.Now().After(deadline) {
			t.Fatalf("%s: %v", key, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func getPairingEvent(t *testing.T, c cupidv1connect.PairingServiceClient, id string) *cupidv1.Event {
	t.Helper()
	res, err := c.GetEvent(context.Background(), connect.NewRequest(&cupidv1.GetEventRequest{Id: id}))
	if err != nil {
		t.Fatal(err)
	}
	return res.Msg.GetEvent()
}

func metGraph(t *testing.T, c cupidv1connect.PairingServiceClient, id string) *cupidv1.MetGraphResponse {
	t.Helper()
	res, err := c.MetGraph(context.Background(), connect.NewRequest(&cupidv1.MetGraphRequest{EventId: id}))
	if err != nil {
		t.Fatal(err)
	}
	return res.Msg
}

// TestPairingChurnThroughTheAPI runs two 80-person events side by side for
// many rounds, with people leaving (some in the middle of a date), crashing
// and rejoining with a cleared record, and taking breaks outside the lobby.
// The organiser's stream records everything the server decides; each call's
// answer says how many rounds had started when it was applied, which places
// it exactly between two rounds however the calls and the server's timers
// interleave. From these the test rebuilds, for every round, the lobby and
// every record the round had to respect, and checks:
//   - the lobby paired (everyone told "paired" or "sat_out") is exactly the
//     people who were in it;
//   - nobody is paired with someone either record says they have met;
//   - the number of pairs is min(rooms, the maximum matching of the allowed
//     pairs), the maximum computed here with graph/matching and proved by
//     its certificate;
//   - no room is double-booked and every room exists;
//   - a partner_left is only ever told for a partner who did leave;
//   - the met-graph the organiser fetches after each round's calls is
//     exactly the records rebuilt here.
func TestPairingChurnThroughTheAPI(t *testing.T) {
	s := startServer(t, serveFlags{})
	for _, rooms := range []int32{40, 25} {
		t.Run(fmt.Sprintf("rooms=%d", rooms), func(t *testing.T) {
			t.Parallel()
			pairingChurn(t, s, rooms, 20, uint64(rooms))
		})
	}
}

// churnCall is one call the churn test made, with the number of rounds
// started when the server applied it.
type churnCall struct {
	op    string // join, enter, break, leave, clear or graph
	key   string
	round int32
	graph *cupidv1.MetGraphResponse
}

func pairingChurn(t *testing.T, s *testServer, rooms int32, rounds int32, seed uint64) {
	c := pairingClient(s)
	id := fmt.Sprintf("churn-%d", rooms)
	createPairingEvent(t, c, &cupidv1.CreateEventRequest{Id: id, Name: "churn", Seed: seed, Settings: &cupidv1.EventSettings{
		Rooms: rooms, RoundMillis: 250, CountdownMillis: 100, MinLobby: 2,
	}})
	org, _ := watchPairing(t, pairingGRPC(s), id, "")

	rng := rand.New(rand.NewPCG(seed, 5))
	const pool = 100 // keys that come and go; about 80 present at a time
	keys := make([]string, pool)
	for i := range keys {
		keys[i] = fmt.Sprintf("p%03d", i)
	}
	// What the test knows of each key. Only calls move people between
	// gone, away and available (lobby or room: the server's timers move
	// people between these two), so this is exact and no call should fail.
	const (
		gone = iota
		away
		available
	)
	state := map[string]int{}
	var calls []churnCall
	do := func(op, key string) {
		t.Helper()
		var call participantCall
		switch op {
		case "join":
			call, state[key] = c.Join, away
		case "enter":
			call, state[key] = c.EnterLobby, available
		case "break":
			call, state[key] = c.LeaveLobby, away
		case "leave":
			call, state[key] = c.Leave, gone
		case "clear":
			call = c.ClearRecord
		}
		res := mustCall(t, call, id, key)
		calls = append(calls, churnCall{op: op, key: key, round: res.GetEvent().GetRound()})
	}
	for _, k := range keys[:80] {
		do("join", k)
		do("enter", k)
	}
	churn := func() {
		var awayKeys []string
		for _, k := range keys {
			if state[k] == away {
				awayKeys = append(awayKeys, k)
			}
		}
		if len(awayKeys) > 0 && rng.IntN(2) == 0 {
			do("enter", awayKeys[rng.IntN(len(awayKeys))])
		}
		for range 2 + rng.IntN(5) {
			k := keys[rng.IntN(pool)]
			switch {
			case state[k] == gone:
				if rng.IntN(3) == 0 {
					do("join", k) // comes back, or arrives late...
					if rng.IntN(2) == 0 {
						do("clear", k) // ...after a crash, with a fresh record
					}
					do("enter", k)
				}
			case state[k] == away:
				do("enter", k) // back from a break
			case rng.IntN(4) == 0:
				do("leave", k)
			case rng.IntN(3) == 0:
				do("clear", k) // wants to meet people again
			default:
				do("break", k)
			}
		}
		g := metGraph(t, c, id)
		calls = append(calls, churnCall{op: "graph", round: g.GetRound(), graph: g})
	}

	// Follow the rounds; after each round starts, make a few calls (some
	// land during the date, some during the next countdown). Stop once a
	// round has started after every call, so that every round the calls
	// could affect has been seen whole.
	var notes []*cupidv1.PairingNotification
	var last int32
	for {
		n := org.next(t)
		notes = append(notes, n)
		if n.GetKind() != "round_started" {
			continue
		}
		latest := calls[len(calls)-1].round
		if n.GetRound() > latest && n.GetRound() > rounds {
			last = n.GetRound() - 1
			break
		}
		if n.GetRound() <= rounds {
			churn()
		}
	}
	checkChurn(t, rooms, notes, calls, last)
}

// roundSeen is what the organiser's stream said about one round.
type roundSeen struct {
	pairs  [][2]string
	rooms  []int32
	satOut []string
}

// checkChurn replays the calls and the rounds in the order the server
// applied them and checks every round up to last.
func checkChurn(t *testing.T, rooms int32, notes []*cupidv1.PairingNotification, calls []churnCall, last int32) {
	t.Helper()
	seen := map[int32]*roundSeen{}
	var stale [][]string // lobbies of attempts that found no pair
	staleAfter := []int32{}
	var round int32
	type left struct {
		key, partner string
		round        int32
	}
	var partnerLeft []left
	for i := 0; i < len(notes); i++ {
		n := notes[i]
		switch n.GetKind() {
		case "round_started":
			round = n.GetRound()
			seen[round] = &roundSeen{}
		case "paired":
			r := seen[n.GetRound()]
			if n.GetRound() != round || r == nil {
				t.Fatalf("paired for round %d outside its round", n.GetRound())
			}
			if n.GetParticipant() < n.GetPartner() {
				r.pairs = append(r.pairs, [2]string{n.GetParticipant(), n.GetPartner()})
				r.rooms = append(r.rooms, n.GetRoom())
			}
		case "sat_out":
			if n.GetRound() == 0 {
				if i == 0 || notes[i-1].GetKind() != "sat_out" || notes[i-1].GetRound() != 0 {
					stale = append(stale, nil)
					staleAfter = append(staleAfter, round)
				}
				stale[len(stale)-1] = append(stale[len(stale)-1], n.GetParticipant())
				continue
			}
			seen[n.GetRound()].satOut = append(seen[n.GetRound()].satOut, n.GetParticipant())
		case "partner_left":
			partnerLeft = append(partnerLeft, left{key: n.GetPartner(), partner: n.GetParticipant(), round: n.GetRound()})
		}
	}

	met := map[string]map[string]bool{} // met[a][b]: a's record says a met b
	remembers := func(a, b string) bool { return met[a][b] || met[b][a] }
	present := map[string]bool{}
	lobby := map[string]bool{} // in the lobby or a room
	leftDuring := map[left]bool{}
	pairedIn := map[left]bool{}
	apply := func(c churnCall) {
		switch c.op {
		case "join":
			present[c.key] = true
		case "enter":
			lobby[c.key] = true
		case "break", "leave":
			delete(lobby, c.key)
			if c.op == "leave" {
				delete(present, c.key)
			}
			leftDuring[left{key: c.key, round: c.round}] = true
		case "clear":
			delete(met, c.key)
		case "graph":
			checkGraph(t, c.graph, met, present)
		}
	}
	next := 0
	totalPairs := 0
	for r := int32(1); r <= last; r++ {
		for next < len(calls) && calls[next].round < r {
			apply(calls[next])
			next++
		}
		got := seen[r]
		if got == nil {
			t.Fatalf("round %d never started", r)
		}
		// The lobby the round paired is the lobby the calls made.
		var told []string
		for _, p := range got.pairs {
			told = append(told, p[0], p[1])
		}
		told = append(told, got.satOut...)
		slices.Sort(told)
		var want []string
		for k := range lobby {
			want = append(want, k)
		}
		slices.Sort(want)
		if !slices.Equal(told, want) {
			t.Fatalf("round %d paired or sat out %v, but the lobby was %v", r, told, want)
		}
		// Nobody paired with someone remembered; rooms single-booked.
		used := map[int32]bool{}
		for i, p := range got.pairs {
			if remembers(p[0], p[1]) {
				t.Fatalf("round %d: %s paired with %s, whom a record says they met", r, p[0], p[1])
			}
			if room := got.rooms[i]; room < 1 || room > rooms || used[room] {
				t.Fatalf("round %d: room %d does not exist or is double-booked", r, room)
			}
			used[got.rooms[i]] = true
		}
		// The most pairs possible, computed independently.
		index := map[string]int{}
		for i, k := range want {
			index[k] = i
		}
		var edges []matching.Edge
		for i, a := range want {
			for j := i + 1; j < len(want); j++ {
				if !remembers(a, want[j]) {
					edges = append(edges, matching.Edge{U: i, V: j})
				}
			}
		}
		g := matching.NewSparse(len(want), edges)
		best := matching.Maximum(g, matching.Options{})
		if err := matching.Verify(g, best); err != nil {
			t.Fatalf("round %d: reference matching: %v", r, err)
		}
		if wantPairs := min(int(rooms), best.Size()); len(got.pairs) != wantPairs {
			t.Fatalf("round %d: %d pairs, want min(%d rooms, maximum %d)", r, len(got.pairs), rooms, best.Size())
		}
		totalPairs += len(got.pairs)
		for _, p := range got.pairs {
			met[p[0]] = setWith(met[p[0]], p[1])
			met[p[1]] = setWith(met[p[1]], p[0])
			pairedIn[left{key: p[0], partner: p[1], round: r}] = true
			pairedIn[left{key: p[1], partner: p[0], round: r}] = true
		}
		// An attempt that found nobody to pair must have been right, even
		// under the records as they were before any later clear.
		for i, lobbyOf := range stale {
			if staleAfter[i] != r {
				continue
			}
			for x, a := range lobbyOf {
				for _, b := range lobbyOf[x+1:] {
					if !remembers(a, b) {
						t.Fatalf("after round %d: nobody paired, yet %s and %s had not met", r, a, b)
					}
				}
			}
		}
	}
	for next < len(calls) && calls[next].round <= last {
		apply(calls[next])
		next++
	}
	for _, l := range partnerLeft {
		if l.round > last {
			continue
		}
		if !leftDuring[left{key: l.key, round: l.round}] || !pairedIn[left{key: l.key, partner: l.partner, round: l.round}] {
			t.Fatalf("%s was told %s left in round %d, but they were not partners or %s did not leave", l.partner, l.key, l.round, l.key)
		}
	}
	graphs := 0
	for _, c := range calls {
		if c.op == "graph" && c.round <= last {
			graphs++
		}
	}
	t.Logf("%d rounds checked, %d pairs, %d calls, %d met-graphs compared, %d partners told of a leave, %d attempts without a pair",
		last, totalPairs, len(calls), graphs, len(partnerLeft), len(stale))
	if graphs == 0 || len(partnerLeft) == 0 {
		t.Fatalf("the churn did not exercise what it should (%d graphs, %d partner_left)", graphs, len(partnerLeft))
	}
}

func setWith(m map[string]bool, k string) map[string]bool {
	if m == nil {
		m = map[string]bool{}
	}
	m[k] = true
	return m
}

// checkGraph compares a fetched met-graph with the records rebuilt from
// the stream and the calls.
func checkGraph(t *testing.T, g *cupidv1.MetGraphResponse, met map[string]map[string]bool, present map[string]bool) {
	t.Helper()
	var want []string
	for a, m := range met {
		for b := range m {
			want = append(want, a+">"+b)
		}
	}
	slices.Sort(want)
	var got []string
	for _, e := range g.GetEdges() {
		got = append(got, e.GetFrom()+">"+e.GetTo())
	}
	if !slices.Equal(got, want) {
		t.Fatalf("met-graph after round %d has %d edges, the rebuilt records %d\ngot  %v\nwant %v", g.GetRound(), len(got), len(want), got, want)
	}
	var people []string
	for k := range present {
		people = append(people, k)
	}
	slices.Sort(people)
	if !slices.Equal(g.GetParticipants(), people) {
		t.Fatalf("met-graph participants %v, want %v", g.GetParticipants(), people)
	}
}

// TestPairingSteadyGroupRoundRobin: eight people who stay in the lobby meet
// everyone in seven rounds (the least possible, four pairs a round, nobody
// twice), then nobody is left to meet and the event stops counting down.
// One participant follows it all on the WebSocket, the organiser on a gRPC
// stream.
func TestPairingSteadyGroupRoundRobin(t *testing.T) {
	s := startServer(t, serveFlags{})
	c := pairingClient(s)
	createPairingEvent(t, c, &cupidv1.CreateEventRequest{Id: "steady", Seed: 3, Settings: &cupidv1.EventSettings{
		Rooms: 4, RoundMillis: 100, CountdownMillis: 50, MinLobby: 8,
	}})
	org, _ := watchPairing(t, pairingGRPC(s), "steady", "")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, strings.Replace(s.url, "http", "ws", 1)+"/v1/events/steady/ws?participant=k0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	readWS := func() *cupidv1.PairingNotification {
		t.Helper()
		_, b, err := ws.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var n cupidv1.PairingNotification
		if err := protojson.Unmarshal(b, &n); err != nil {
			t.Fatalf("socket message %s: %v", b, err)
		}
		return &n
	}
	if n := readWS(); n.GetKind() != "watching" || n.GetState() != "" || n.GetPhase() != "idle" {
		t.Fatalf("first socket message %v", n)
	}

	keys := []string{"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7"}
	for _, k := range keys {
		mustCall(t, c.Join, "steady", k)
		mustCall(t, c.EnterLobby, "steady", k) // the eighth starts the countdown
	}
	met := map[[2]string]int32{}
	for r := int32(1); r <= 7; r++ {
		if n := org.until(t, "round_started"); n.GetRound() != r {
			t.Fatalf("round %d started, want %d", n.GetRound(), r)
		}
		rooms := map[int32]bool{}
		for range 8 {
			n := org.next(t)
			if n.GetKind() != "paired" || n.GetRound() != r {
				t.Fatalf("round %d: %v, want everyone paired", r, n)
			}
			rooms[n.GetRoom()] = true
			if p := [2]string{n.GetParticipant(), n.GetPartner()}; p[0] < p[1] {
				if before, ok := met[p]; ok {
					t.Fatalf("%s and %s met in rounds %d and %d", p[0], p[1], before, r)
				}
				met[p] = r
			}
		}
		if len(rooms) != 4 {
			t.Fatalf("round %d used rooms %v", r, rooms)
		}
	}
	if len(met) != 28 {
		t.Fatalf("%d pairs met in 7 rounds, want all 28", len(met))
	}
	// Round 8 finds nobody: everyone sits out, and the event goes idle.
	for range 8 {
		if n := org.until(t, "sat_out"); n.GetRound() != 0 {
			t.Fatalf("after round 7: %v", n)
		}
	}
	if ev := getPairingEvent(t, c, "steady"); ev.GetPhase() != "idle" || ev.GetRound() != 7 || ev.GetLobbyCount() != 8 {
		t.Fatalf("after everyone met: %v", ev)
	}
	if g := metGraph(t, c, "steady"); len(g.GetEdges()) != 56 || g.GetRound() != 7 {
		t.Fatalf("met-graph has %d edges after round %d, want 56 after 7", len(g.GetEdges()), g.GetRound())
	}

	// k0's socket told the same story, from k0's side.
	var want []string
	for range 7 {
		want = append(want, "countdown_started", "paired", "round_ended")
	}
	want = append(want, "countdown_started", "sat_out")
	var got []string
	partners := map[string]bool{}
	for range want {
		n := readWS()
		got = append(got, n.GetKind())
		if n.GetParticipant() != "k0" {
			t.Fatalf("k0's socket got %v", n)
		}
		if n.GetKind() == "paired" {
			partners[n.GetPartner()] = true
		}
	}
	if !slices.Equal(got, want) || len(partners) != 7 {
		t.Fatalf("k0's socket: %v with %d partners, want %v with 7", got, len(partners), want)
	}

	res, err := http.Get(s.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, series := range []string{"cupid_pairing_rounds_total 7", "cupid_pairing_events 1", "cupid_pairing_round_pairs_sum 28", "cupid_pairing_lobby_participants 8", "cupid_pairing_round_compute_seconds_count 7"} {
		if !strings.Contains(string(body), series) {
			t.Errorf("/metrics lacks %q", series)
		}
	}
}

// TestPairingDirectedRecords: a participant who crashes and rejoins with a
// clean slate is still not paired with someone who remembers them; once
// both have cleared their records they can meet again. Either of the two
// may be the first to clear.
func TestPairingDirectedRecords(t *testing.T) {
	s := startServer(t, serveFlags{})
	c := pairingClient(s)
	for _, first := range []string{"a", "b"} {
		t.Run("first "+first, func(t *testing.T) {
			second := map[string]string{"a": "b", "b": "a"}[first]
			id := "directed-" + first
			createPairingEvent(t, c, &cupidv1.CreateEventRequest{Id: id, Settings: &cupidv1.EventSettings{
				Rooms: 1, RoundMillis: 100, CountdownMillis: 20, MinLobby: 2,
			}})
			org, _ := watchPairing(t, c, id, "")
			// decisive returns the next notification that settles a
			// countdown: a round started, or nobody could be paired.
			decisive := func() *cupidv1.PairingNotification {
				for {
					n := org.next(t)
					if n.GetKind() == "round_started" || n.GetKind() == "sat_out" && n.GetRound() == 0 {
						return n
					}
				}
			}
			for _, k := range []string{"a", "b"} {
				mustCall(t, c.Join, id, k)
				mustCall(t, c.EnterLobby, id, k)
			}
			if n := decisive(); n.GetKind() != "round_started" {
				t.Fatalf("a and b not paired: %v", n)
			}
			if n := decisive(); n.GetKind() != "sat_out" {
				t.Fatalf("a and b paired twice: %v", n)
			}
			org.next(t) // the other sat_out
			// first crashes and comes back with a clean slate.
			mustCall(t, c.Leave, id, first)
			mustCall(t, c.Join, id, first)
			mustCall(t, c.ClearRecord, id, first)
			mustCall(t, c.EnterLobby, id, first)
			if n := decisive(); n.GetKind() != "sat_out" {
				t.Fatalf("paired again although %s remembers %s: %v", second, first, n)
			}
			org.next(t)
			g := metGraph(t, c, id)
			if len(g.GetEdges()) != 1 || g.GetEdges()[0].GetFrom() != second || g.GetEdges()[0].GetTo() != first {
				t.Fatalf("met-graph %v, want only %s's record of %s", g.GetEdges(), second, first)
			}
			// Once both have cleared, they may meet again.
			mustCall(t, c.ClearRecord, id, second)
			if n := decisive(); n.GetKind() != "round_started" || n.GetRound() != 2 {
				t.Fatalf("after both cleared: %v", n)
			}
		})
	}
}

// pairingPost calls a PairingService procedure with a raw JSON body, as
// curl would, and returns the status, the decoded body and the field
// header.
func pairingPost(t *testing.T, url, procedure, body string) (int, map[string]any, string) {
	t.Helper()
	status, out, h := postService(t, url, "PairingService", procedure, body)
	return status, out, h.Get("Cupid-Field")
}

// TestPairingBadInputNamesTheFieldAndChangesNothing sends every kind of
// bad request and checks the code, the field (in the message and in the
// Cupid-Field header) and that the events are exactly as before.
func TestPairingBadInputNamesTheFieldAndChangesNothing(t *testing.T) {
	s := startServer(t, serveFlags{})
	c := pairingClient(s)
	createPairingEvent(t, c, &cupidv1.CreateEventRequest{Id: "bad", Settings: &cupidv1.EventSettings{Rooms: 2, MinLobby: 3}})
	mustCall(t, c.Join, "bad", "ann")
	mustCall(t, c.EnterLobby, "bad", "ann")
	mustCall(t, c.Join, "bad", "bob")

	snapshot := func() []proto.Message {
		list, err := c.ListEvents(context.Background(), connect.NewRequest(&cupidv1.ListEventsRequest{}))
		if err != nil {
			t.Fatal(err)
		}
		return []proto.Message{getPairingEvent(t, c, "bad"), metGraph(t, c, "bad"), list.Msg}
	}
	before := snapshot()

	cases := []struct {
		name, procedure, body string
		code, field           string
	}{
		{"unknown event", "Join", `{"eventId":"nope","participant":"zoe"}`, "not_found", "event_id"},
		{"joining twice", "Join", `{"eventId":"bad","participant":"ann"}`, "failed_precondition", "participant"},
		{"no rooms", "CreateEvent", `{"id":"zero","settings":{"rooms":0,"roundSeconds":60}}`, "invalid_argument", "settings.rooms"},
		{"no settings", "CreateEvent", `{"id":"none"}`, "invalid_argument", "settings"},
		{"lobby without joining", "EnterLobby", `{"eventId":"bad","participant":"zoe"}`, "not_found", "participant"},
		{"lobby twice", "EnterLobby", `{"eventId":"bad","participant":"ann"}`, "failed_precondition", "participant"},
		{"break when away", "LeaveLobby", `{"eventId":"bad","participant":"bob"}`, "failed_precondition", "participant"},
		{"leave without joining", "Leave", `{"eventId":"bad","participant":"zoe"}`, "not_found", "participant"},
		{"clear without joining", "ClearRecord", `{"eventId":"bad","participant":"zoe"}`, "not_found", "participant"},
		{"empty participant", "Join", `{"eventId":"bad","participant":""}`, "invalid_argument", "participant"},
		{"control character", "Join", `{"eventId":"bad","participant":"a\u0007b"}`, "invalid_argument", "participant"},
		{"long participant", "Join", `{"eventId":"bad","participant":"` + strings.Repeat("x", 129) + `"}`, "invalid_argument", "participant"},
		{"no event id", "Join", `{"participant":"zoe"}`, "invalid_argument", "event_id"},
		{"negative rooms", "CreateEvent", `{"settings":{"rooms":-1}}`, "invalid_argument", "settings.rooms"},
		{"seconds and millis", "CreateEvent", `{"settings":{"rooms":1,"roundSeconds":1,"roundMillis":500}}`, "invalid_argument", "settings.round_millis"},
		{"negative countdown", "CreateEvent", `{"settings":{"rooms":1,"countdownSeconds":-5}}`, "invalid_argument", "settings.countdown_seconds"},
		{"round over a day", "CreateEvent", `{"settings":{"rooms":1,"roundSeconds":86401}}`, "invalid_argument", "settings.round_seconds"},
		{"lobby of one", "CreateEvent", `{"settings":{"rooms":1,"minLobby":1}}`, "invalid_argument", "settings.min_lobby"},
		{"id with a slash", "CreateEvent", `{"id":"a/b","settings":{"rooms":1}}`, "invalid_argument", "id"},
		{"taken id", "CreateEvent", `{"id":"bad","settings":{"rooms":1}}`, "failed_precondition", "id"},
		{"name with a newline", "CreateEvent", `{"name":"a\nb","settings":{"rooms":1}}`, "invalid_argument", "name"},
		{"get unknown", "GetEvent", `{"id":"nope"}`, "not_found", "id"},
		{"delete unknown", "DeleteEvent", `{"id":"nope"}`, "not_found", "id"},
		{"graph of unknown", "MetGraph", `{"eventId":"nope"}`, "not_found", "event_id"},
		{"malformed JSON", "Join", `{"eventId":"bad"`, "invalid_argument", ""},
		{"wrong type", "CreateEvent", `{"settings":{"rooms":"two"}}`, "invalid_argument", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, out, field := pairingPost(t, s.url, tc.procedure, tc.body)
			if out["code"] != tc.code {
				t.Fatalf("code %v, want %s (%v)", out["code"], tc.code, out)
			}
			msg, _ := out["message"].(string)
			if tc.field != "" && (!strings.HasPrefix(msg, tc.field+":") || field != tc.field) {
				t.Fatalf("message %q, field header %q: want the field %q", msg, field, tc.field)
			}
		})
	}
	after := snapshot()
	for i := range before {
		if !proto.Equal(before[i], after[i]) {
			t.Fatalf("bad input changed the events:\n%v\n%v", before[i], after[i])
		}
	}
	// The socket refuses in plain HTTP before upgrading.
	for path, want := range map[string]int{
		"/v1/events/nope/ws":                 http.StatusNotFound,
		"/v1/events/bad/ws?participant=%07x": http.StatusBadRequest,
	} {
		res, err := http.Get(s.url + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Fatalf("%s: %d, want %d", path, res.StatusCode, want)
		}
	}
}

// TestPairingLimitsFromTheConfigFile: the pairing section of the file given
// to cupid serve reaches the running service — the default settings of an
// event that leaves them out, the number of events and the people one event
// knows.
func TestPairingLimitsFromTheConfigFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cupid.yaml")
	if err := os.WriteFile(path, []byte(`
queues:
  - name: duel
    ruleset: {alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}}
pairing:
  max_events: 1
  max_participants: 2
  defaults: {round: 90s, countdown: 5s, min_lobby: 3}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, serveFlags{config: path})
	c := pairingClient(s)
	ev := createPairingEvent(t, c, &cupidv1.CreateEventRequest{Id: "only", Settings: &cupidv1.EventSettings{Rooms: 2}})
	if st := ev.GetSettings(); st.GetRoundSeconds() != 90 || st.GetCountdownSeconds() != 5 || st.GetMinLobby() != 3 {
		t.Fatalf("settings %v, want the configured defaults (90 s, 5 s, 3)", st)
	}
	if _, out, _ := pairingPost(t, s.url, "CreateEvent", `{"id":"second","settings":{"rooms":1}}`); out["code"] != "resource_exhausted" {
		t.Fatalf("a second event: %v, want resource_exhausted (max_events 1)", out)
	}
	mustCall(t, c.Join, "only", "ann")
	mustCall(t, c.Join, "only", "bob")
	if _, out, field := pairingPost(t, s.url, "Join", `{"eventId":"only","participant":"cat"}`); out["code"] != "resource_exhausted" || field != "participant" {
		t.Fatalf("a third participant: %v, want resource_exhausted (max_participants 2)", out)
	}
}

// TestPairingSurvivesRestart stops the server in the middle of a round and
// starts another on the same data: the event, its participants, the rooms
// and the met records (directed, after one side cleared theirs) are all
// there, and the event goes on.
func TestPairingSurvivesRestart(t *testing.T) {
	s := startServer(t, serveFlags{})
	c := pairingClient(s)
	createPairingEvent(t, c, &cupidv1.CreateEventRequest{Id: "durable", Name: "Friday", Settings: &cupidv1.EventSettings{
		Rooms: 2, RoundSeconds: 3600, CountdownMillis: 20, MinLobby: 4,
	}})
	org, _ := watchPairing(t, c, "durable", "")
	for _, k := range []string{"ann", "bob", "cat", "dan"} {
		mustCall(t, c.Join, "durable", k)
		mustCall(t, c.EnterLobby, "durable", k)
	}
	org.until(t, "round_started")
	partner := map[string]string{}
	for range 4 {
		n := org.until(t, "paired")
		partner[n.GetParticipant()] = n.GetPartner()
	}
	mustCall(t, c.ClearRecord, "durable", "ann") // ann forgets; her partner does not
	mustCall(t, c.Join, "durable", "eve")        // away
	mustCall(t, c.Join, "durable", "fay")
	mustCall(t, c.EnterLobby, "durable", "fay") // waits for the next round
	mustCall(t, c.Join, "durable", "gus")
	mustCall(t, c.Leave, "durable", "gus") // gone, remembered
	ev := getPairingEvent(t, c, "durable")
	g := metGraph(t, c, "durable")
	if len(g.GetEdges()) != 3 || ev.GetPhase() != "round" || len(ev.GetPairs()) != 2 || ev.GetParticipantCount() != 6 {
		t.Fatalf("before the restart: %v %v", ev, g)
	}

	s.stop()
	s2 := startServer(t, serveFlags{data: s.data})
	c2 := pairingClient(s2)
	if ev2 := getPairingEvent(t, c2, "durable"); !proto.Equal(ev2, ev) {
		t.Fatalf("after the restart:\n%v\nwant\n%v", ev2, ev)
	}
	if g2 := metGraph(t, c2, "durable"); !proto.Equal(g2, g) {
		t.Fatalf("met-graph after the restart:\n%v\nwant\n%v", g2, g)
	}
	// The event goes on: ann's partner is told when she leaves her room.
	p := partner["ann"]
	pw, first := watchPairing(t, c2, "durable", p)
	if first.GetState() != "room" || first.GetPartner() != "ann" {
		t.Fatalf("%s's watch starts with %v", p, first)
	}
	res := mustCall(t, c2.LeaveLobby, "durable", "ann")
	if res.GetState() != "away" {
		t.Fatalf("ann after leaving the room: %v", res)
	}
	if n := pw.next(t); n.GetKind() != "partner_left" || n.GetPartner() != "ann" {
		t.Fatalf("%s told %v", p, n)
	}
	_, err := c2.Join(context.Background(), connect.NewRequest(&cupidv1.ParticipantRequest{EventId: "durable", Participant: "bob"}))
	if connect.CodeOf(err) != connect.CodeFailedPrecondition {
		t.Fatalf("bob joining again after the restart: %v", err)
	}
	// Deleting ends the watch and removes the event for good.
	if _, err := c2.DeleteEvent(context.Background(), connect.NewRequest(&cupidv1.DeleteEventRequest{Id: "durable"})); err != nil {
		t.Fatal(err)
	}
	if n := pw.until(t, "event_deleted"); n.GetParticipant() != p {
		t.Fatalf("last message %v", n)
	}
	s2.stop()
	s3 := startServer(t, serveFlags{data: s.data})
	list, err := pairingClient(s3).ListEvents(context.Background(), connect.NewRequest(&cupidv1.ListEventsRequest{}))
	if err != nil || len(list.Msg.GetEvents()) != 0 {
		t.Fatalf("after deleting and restarting: %v %v", list.Msg, err)
	}
}
