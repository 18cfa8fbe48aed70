package pairing

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/cupid-match/cupid"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func snapshotsEqual(a, b Snapshot) bool { return reflect.DeepEqual(a, b) }

// busyEvent returns an event in the middle of things: a round running, one
// person on a break, one gone, records of several rounds.
func busyEvent(t *testing.T) (*Event, time.Time) {
	d := newDriver(t, Config{Rooms: 3, Round: 3 * time.Minute, Countdown: 15 * time.Second, MinLobby: 2}, 42)
	keys := []string{"ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal", "ivy"}
	d.join(keys...)
	d.untilRoundStarts()
	d.step()
	d.must(d.e.LeaveLobby(d.now, "cat"))
	d.must(d.e.Leave(d.now, "dan"))
	d.untilRoundStarts()
	return d.e, d.now
}

func TestSnapshotRoundTrip(t *testing.T) {
	e, now := busyEvent(t)
	s := e.Snapshot()
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Snapshot
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !snapshotsEqual(s, back) {
		t.Fatalf("JSON round trip changed the snapshot:\n%+v\n%+v", s, back)
	}
	r, err := Restore(back)
	if err != nil {
		t.Fatal(err)
	}
	if again := r.Snapshot(); !snapshotsEqual(s, again) {
		t.Fatalf("Restore changed the snapshot:\n%+v\n%+v", s, again)
	}
	// The restored event behaves exactly as the original from here on,
	// random choices included.
	script := func(e *Event) []Notification {
		var all []Notification
		add := func(n []Notification, err error) {
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, n...)
		}
		add(e.EnterLobby(now, "cat"))
		add(e.Join(now, "dan"))
		add(e.EnterLobby(now, "dan"))
		at := now
		for range 8 {
			at, _ = e.NextDeadline()
			all = append(all, e.Advance(at)...)
		}
		add(e.ClearRecord(at, "ann"))
		return all
	}
	if a, b := script(e), script(r); !reflect.DeepEqual(a, b) {
		t.Fatalf("restored event diverged:\n%v\n%v", kinds(a), kinds(b))
	}
	if !snapshotsEqual(e.Snapshot(), r.Snapshot()) {
		t.Fatal("restored event ended in another state")
	}
}

func TestRestoreRejects(t *testing.T) {
	e, _ := busyEvent(t)
	cases := []struct {
		name  string
		edit  func(*Snapshot)
		field string
	}{
		{"version", func(s *Snapshot) { s.Version = 9 }, "version"},
		{"config", func(s *Snapshot) { s.Config.Rooms = 0 }, "config.rooms"},
		{"phase", func(s *Snapshot) { s.Phase = "dancing" }, "phase"},
		{"idle with deadline", func(s *Snapshot) { s.Phase = PhaseIdle }, "deadline"},
		{"round without deadline", func(s *Snapshot) { s.Deadline = time.Time{} }, "deadline"},
		{"negative round", func(s *Snapshot) { s.Round = -1 }, "round"},
		{"rand", func(s *Snapshot) { s.Rand = []byte("x") }, "rand"},
		{"bad key", func(s *Snapshot) { s.People[0].Key = "" }, "people[0].key"},
		{"duplicate key", func(s *Snapshot) { s.People[1].Key = s.People[0].Key }, "people[1].key"},
		{"state", func(s *Snapshot) { s.People[0].State = "asleep" }, "people[0].state"},
		{"sat out", func(s *Snapshot) { s.People[0].SatOut = -2 }, "people[0].sat_out"},
		{"unknown met", func(s *Snapshot) { s.People[0].Met = append(s.People[0].Met, "zed") }, "people[0].met[" + itoa(len(s0(e).People[0].Met)) + "]"},
		{"room without partner", func(s *Snapshot) { roomer(s).Partner = "" }, "people[" + itoa(roomerIndex(s0(e))) + "].room"},
		{"partner disagrees", func(s *Snapshot) { roomer(s).Partner = "cat" }, "pairs[" + itoa(pairOf(s0(e), roomer(ptr(s0(e))).Key)) + "]"},
		{"room out of range", func(s *Snapshot) { roomer(s).Room = 99 }, "people[" + itoa(roomerIndex(s0(e))) + "].room"},
		{"seat of a gone person", func(s *Snapshot) { s.Seats[0] = "dan" }, "seats[0]"},
		{"odd seats", func(s *Snapshot) { s.Seats = s.Seats[1:] }, "seats"},
		{"turn", func(s *Snapshot) { s.Turn = len(s.Seats) }, "turn"},
		{"lobby view", func(s *Snapshot) { s.Lobby = append(s.Lobby, "ann") }, "lobby"},
		{"participants view", func(s *Snapshot) { s.Participants = s.Participants[1:] }, "participants"},
		{"pairs view", func(s *Snapshot) { s.Pairs = nil }, "people[" + itoa(roomerIndex(s0(e))) + "].room"},
		{"double-booked", func(s *Snapshot) { s.Pairs = append(s.Pairs, s.Pairs[0]) }, "pairs[" + itoa(len(s0(e).Pairs)) + "].room"},
		{"trio partner missing", func(s *Snapshot) { s.Pairs[0].C = "dan" }, "pairs[0]"},
		{"paused without time", func(s *Snapshot) { s.Paused = true }, "paused_at"},
		{"group in an open event", func(s *Snapshot) { s.People[0].Group = "x" }, "people[0].group"},
		{"answer about a stranger", func(s *Snapshot) { s.People[0].Yes = []string{"zed"} }, "people[0].yes[0]"},
		{"kept out of order", func(s *Snapshot) { s.Kept = append(s.Kept, s.Kept[0]) }, "kept[" + itoa(len(s0(e).Kept)) + "]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := s0(e)
			c.edit(&s)
			_, err := Restore(s)
			var ce *cupid.Error
			if !errorsAs(err, &ce) || ce.Code == "" || ce.Field != c.field {
				t.Fatalf("got %v, want an error on %q", err, c.field)
			}
		})
	}
}

// s0 is a fresh deep copy of e's snapshot (through JSON), safe to edit.
func s0(e *Event) Snapshot {
	data, _ := json.Marshal(e.Snapshot())
	var s Snapshot
	_ = json.Unmarshal(data, &s)
	return s
}

func roomerIndex(s Snapshot) int {
	for i, p := range s.People {
		if p.State == StateRoom {
			return i
		}
	}
	return -1
}

func roomer(s *Snapshot) *Person { return &s.People[roomerIndex(*s)] }

func ptr(s Snapshot) *Snapshot { return &s }

// pairOf returns the index in s.Pairs of the room key is in.
func pairOf(s Snapshot, key string) int {
	for i, p := range s.Pairs {
		if p.A == key || p.B == key || p.C == key {
			return i
		}
	}
	return -1
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestGolden replays a scripted evening and compares every notification
// and the final snapshot with testdata/evening.golden. Run with -update
// after an intended change of behaviour, and review the diff.
func TestGolden(t *testing.T) {
	d := newDriver(t, Config{Rooms: 2, Round: 4 * time.Minute, Countdown: 20 * time.Second, MinLobby: 3}, 2025)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	log := func(what string, notes []Notification, err error) {
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		buf.WriteString("# " + what + "\n")
		for _, n := range notes {
			if err := enc.Encode(n); err != nil {
				t.Fatal(err)
			}
		}
	}
	call := func(what string, f func(time.Time, string) ([]Notification, error), k string) {
		n, err := f(d.now, k)
		log(what+" "+k, n, err)
	}
	for _, k := range []string{"ann", "bob", "cat", "dan", "eve", "fay"} {
		call("join", d.e.Join, k)
	}
	for _, k := range []string{"ann", "bob", "cat", "dan", "eve"} {
		call("enter", d.e.EnterLobby, k)
	}
	advance := func() {
		at, ok := d.e.NextDeadline()
		if !ok {
			t.Fatal("nothing due")
		}
		d.now = at
		log("advance to "+at.Format(time.TimeOnly), d.e.Advance(at), nil)
	}
	advance() // round 1: two rooms, one sits out
	d.now = d.now.Add(time.Minute)
	call("enter", d.e.EnterLobby, "fay")
	call("leave", d.e.Leave, "ann")
	advance() // round 1 ends
	advance() // round 2
	advance()
	call("break", d.e.LeaveLobby, "bob")
	call("join", d.e.Join, "ann")
	call("clear", d.e.ClearRecord, "ann")
	call("enter", d.e.EnterLobby, "ann")
	advance()
	advance()
	advance()
	snap, err := json.MarshalIndent(d.e.Snapshot(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	buf.WriteString("# snapshot\n")
	buf.Write(snap)
	buf.WriteString("\n# met graph\n")
	graph, _ := json.Marshal(d.e.MetGraph())
	buf.Write(graph)
	buf.WriteString("\n")

	path := filepath.Join("testdata", "evening.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("output differs from %s (run with -update and review the diff):\n%s", path, buf.String())
	}
}
