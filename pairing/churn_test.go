package pairing

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cupid-match/cupid/graph/matching"
)

// TestChurn runs an 80-person event for many rounds with people leaving,
// crashing and rejoining with a cleared record, taking breaks and coming
// back, some of it in the middle of rounds, and checks after every round
// that:
//   - nobody is paired with someone either record says they met;
//   - only people who were in the lobby are paired;
//   - the number of pairs is the most possible: min(rooms, maximum matching
//     of the allowed pairs), the maximum computed independently and proved
//     by matching.Verify's certificate; with enough rooms the round's own
//     pairs are proved maximum too;
//   - no room is double-booked, every room number exists;
//   - a partner left behind in a room is told;
//   - the snapshot is consistent (Restore accepts it) and round-trips.
func TestChurn(t *testing.T) {
	rounds := 150
	if testing.Short() {
		rounds = 40
	}
	for _, rooms := range []int{80, 25} {
		t.Run(fmt.Sprintf("rooms=%d", rooms), func(t *testing.T) {
			churn(t, rooms, rounds, uint64(rooms))
		})
	}
}

func churn(t *testing.T, rooms, rounds int, seed uint64) {
	cfg := Config{Rooms: rooms, Round: 5 * time.Minute, Countdown: 20 * time.Second, MinLobby: 2}
	e, err := New(cfg, seed)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 99))
	now := t0
	const pool = 100 // keys that come and go; about 80 present at a time
	keys := make([]string, pool)
	for i := range keys {
		keys[i] = keyOf(i)
	}
	var partnerLeftWanted []string // partners that must be told, this call
	do := func(op string, k string) {
		t.Helper()
		var notes []Notification
		var err error
		partnerLeftWanted = partnerLeftWanted[:0]
		if p := e.people[k]; p != nil && p.state == StateRoom && (op == "leave" || op == "break") {
			partnerLeftWanted = append(partnerLeftWanted, p.partner)
		}
		switch op {
		case "join":
			notes, err = e.Join(now, k)
		case "enter":
			notes, err = e.EnterLobby(now, k)
		case "break":
			notes, err = e.LeaveLobby(now, k)
		case "leave":
			notes, err = e.Leave(now, k)
		case "clear":
			notes, err = e.ClearRecord(now, k)
		}
		if err != nil {
			t.Fatalf("%s %s: %v", op, k, err)
		}
		for _, want := range partnerLeftWanted {
			found := false
			for _, n := range notes {
				found = found || n.Participant == want && n.Kind == KindPartnerLeft && n.Partner == k
			}
			if !found {
				t.Fatalf("%s %s: partner %s not told (%v)", op, k, want, kinds(notes))
			}
		}
	}
	// Everyone arrives at first except the last 20.
	for _, k := range keys[:80] {
		do("join", k)
		do("enter", k)
	}
	// perturb applies a few random changes of the kinds real events see.
	perturb := func() {
		if away := e.inState(StateAway); len(away) > 0 && rng.IntN(2) == 0 {
			do("enter", away[rng.IntN(len(away))])
		}
		for range rng.IntN(4) {
			k := keys[rng.IntN(pool)]
			p := e.people[k]
			switch {
			case p == nil || p.state == StateGone:
				if rng.IntN(3) == 0 {
					do("join", k) // comes back (or arrives late)...
					if rng.IntN(2) == 0 {
						do("clear", k) // ...after a crash, with a fresh record
					}
					do("enter", k)
				}
			case p.state == StateAway:
				do("enter", k) // back from a break
			case rng.IntN(3) == 0:
				do("leave", k)
			default:
				do("break", k)
			}
		}
	}

	for round := 0; round < rounds; round++ {
		perturb()
		at, due := e.NextDeadline()
		if !due {
			// Idle: too few in the lobby or nobody left to meet; bring
			// someone new in.
			continue
		}
		if e.phase == PhaseRound {
			now = at.Add(-time.Duration(rng.IntN(60)+1) * time.Second)
			perturb() // in the middle of the round
			at, due = e.NextDeadline()
			if !due {
				continue
			}
			now = at
			e.Advance(now)
			perturb() // during the countdown
			at, due = e.NextDeadline()
			if !due || e.phase != PhaseCountdown {
				continue
			}
		}
		// The countdown is about to end: record the lobby and the records
		// the round must respect, then let it run.
		before := e.Snapshot()
		now = at
		notes := e.Advance(now)
		checkRound(t, before, notes, rooms)
		checkSnapshot(t, e)
	}
	if e.round < rounds/2 {
		t.Fatalf("only %d rounds ran", e.round)
	}
	t.Logf("%d rounds, %d present at the end, %d in the lobby", e.round, len(e.Snapshot().Participants), e.lobby)
}

// checkRound checks one round's notifications against the state just
// before it was computed.
func checkRound(t *testing.T, before Snapshot, notes []Notification, rooms int) {
	t.Helper()
	met := map[[2]string]bool{}
	for _, p := range before.People {
		for _, o := range p.Met {
			met[[2]string{p.Key, o}] = true
			met[[2]string{o, p.Key}] = true
		}
	}
	lobby := before.Lobby
	index := map[string]int{}
	for i, k := range lobby {
		index[k] = i
	}
	// The allowed pairs, built here independently of the event's code.
	var edges []matching.Edge
	for i, a := range lobby {
		for j := i + 1; j < len(lobby); j++ {
			if !met[[2]string{a, lobby[j]}] {
				edges = append(edges, matching.Edge{U: i, V: j})
			}
		}
	}
	g := matching.NewSparse(len(lobby), edges)
	ref := matching.Maximum(g, matching.Options{})
	if err := matching.Verify(g, ref); err != nil {
		t.Fatalf("reference matching: %v", err)
	}
	got := make(matching.Matching, len(lobby))
	for i := range got {
		got[i] = matching.Unmatched
	}
	roomOf := map[int]string{}
	pairs := 0
	for _, n := range notes {
		if n.Kind != KindPaired {
			continue
		}
		i, ok1 := index[n.Participant]
		j, ok2 := index[n.Partner]
		if !ok1 || !ok2 {
			t.Fatalf("round %d: %s paired with %s, not both in the lobby", n.Round, n.Participant, n.Partner)
		}
		if met[[2]string{n.Participant, n.Partner}] {
			t.Fatalf("round %d: %s paired with %s, whom a record says they met", n.Round, n.Participant, n.Partner)
		}
		if n.Room < 1 || n.Room > rooms {
			t.Fatalf("round %d: room %d does not exist", n.Round, n.Room)
		}
		if other, used := roomOf[n.Room]; used && other != n.Partner {
			t.Fatalf("round %d: room %d double-booked (%s, %s)", n.Round, n.Room, other, n.Participant)
		}
		roomOf[n.Room] = n.Participant
		if got[i] != matching.Unmatched && got[i] != j {
			t.Fatalf("round %d: %s paired twice", n.Round, n.Participant)
		}
		got[i] = j
		if i < j {
			pairs++
		}
	}
	want := min(rooms, ref.Size())
	if pairs != want {
		t.Fatalf("%d pairs, want min(%d rooms, maximum %d) = %d", pairs, rooms, ref.Size(), want)
	}
	if want == ref.Size() {
		if err := matching.Verify(g, got); err != nil {
			t.Fatalf("the round's pairs are not a maximum matching: %v", err)
		}
	}
}

// checkSnapshot restores the event's snapshot (which checks its
// consistency: partners agree, rooms single-booked) and compares.
func checkSnapshot(t *testing.T, e *Event) {
	t.Helper()
	s := e.Snapshot()
	r, err := Restore(s)
	if err != nil {
		t.Fatalf("snapshot does not restore: %v", err)
	}
	if again := r.Snapshot(); !snapshotsEqual(s, again) {
		t.Fatal("snapshot changed through Restore")
	}
}
