package pairing

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// FuzzOperations drives a small event with a sequence of operations read
// from the fuzzer's bytes (two bytes each: operation, participant and time
// step) and checks after each one that a failed operation changed nothing
// and that the event's snapshot is consistent and round-trips.
func FuzzOperations(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 0, 2, 2, 0, 2, 1, 2, 2, 5, 40, 5, 255, 3, 0, 1, 1, 4, 2, 5, 90})
	f.Add([]byte{0, 0, 0, 1, 2, 0, 2, 1, 5, 200, 1, 0, 0, 0, 4, 0, 2, 0, 5, 200, 5, 200})
	// Five people (a trio), a pause, an extension by both, an early end.
	f.Add([]byte{0, 0, 0, 1, 0, 2, 0, 3, 0, 4, 2, 0, 2, 1, 2, 2, 2, 3, 2, 4, 5, 10, 6, 0, 5, 30, 7, 0,
		10, 0, 10, 1, 10, 2, 10, 3, 10, 4, 5, 25, 9, 0, 14, 8, 14, 9, 16, 0, 5, 70, 5, 70, 11, 9, 12, 8, 15, 0})
	keys := []string{"ann", "bob", "cat", "dan", "eve", "fay"}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 400 {
			return
		}
		cfg := Config{Rooms: 2, Round: time.Minute, Countdown: 10 * time.Second, MinLobby: 2,
			Trios: true, MinDate: 20 * time.Second, Extension: time.Minute}
		e, err := New(cfg, 1)
		if err != nil {
			t.Fatal(err)
		}
		now := t0
		for i := 0; i+1 < len(data); i += 2 {
			op, arg := data[i]%17, data[i+1]
			k := keys[int(arg)%len(keys)]
			// A failed call may still have let time act (as Advance(now)
			// would); compare with that.
			e.Advance(now)
			before := e.Snapshot()
			switch op {
			case 0:
				_, err = e.Join(now, k)
			case 1:
				_, err = e.Leave(now, k)
			case 2:
				_, err = e.EnterLobby(now, k)
			case 3:
				_, err = e.LeaveLobby(now, k)
			case 4:
				_, err = e.ClearRecord(now, k)
			case 5:
				now = now.Add(time.Duration(arg) * time.Second)
				e.Advance(now)
				err = nil
			case 6:
				_, err = e.Pause(now)
			case 7:
				_, err = e.Resume(now)
			case 8:
				_, err = e.StartRound(now)
			case 9:
				_, err = e.EndRound(now)
			case 10:
				_, err = e.Extend(now, k)
			case 11:
				_, err = e.SetNever(now, k, keys[int(arg/8)%len(keys)], arg%2 == 0)
			case 12:
				_, err = e.ForgetMeeting(now, k, keys[int(arg/8)%len(keys)])
			case 13:
				_, err = e.RecordMeeting(now, k, keys[int(arg/8)%len(keys)], 100)
			case 14:
				_, err = e.Answer(now, k, keys[int(arg/8)%len(keys)], arg%2 == 0)
			case 15:
				c := cfg
				c.Rooms = 1 + int(arg)%3
				_, err = e.UpdateConfig(now, c)
			case 16:
				_, err = e.Reveal(now)
			}
			after := e.Snapshot()
			if err != nil && !reflect.DeepEqual(before, after) {
				t.Fatalf("op %d on %s failed (%v) but changed the event", op, k, err)
			}
			data, jerr := json.Marshal(after)
			if jerr != nil {
				t.Fatal(jerr)
			}
			var back Snapshot
			if jerr := json.Unmarshal(data, &back); jerr != nil {
				t.Fatal(jerr)
			}
			r, rerr := Restore(back)
			if rerr != nil {
				t.Fatalf("after op %d on %s: snapshot does not restore: %v", op, k, rerr)
			}
			if !reflect.DeepEqual(r.Snapshot(), after) {
				t.Fatalf("after op %d on %s: snapshot changed through JSON and Restore", op, k)
			}
			if e.lobby != len(after.Lobby) {
				t.Fatalf("lobby count %d, lobby %v", e.lobby, after.Lobby)
			}
			extended := 0
			for _, pr := range e.rooms {
				if !pr.until.IsZero() {
					extended++
				}
			}
			if e.overtime != extended {
				t.Fatalf("overtime count %d, %d rooms extended", e.overtime, extended)
			}
		}
	})
}

// FuzzRestore feeds arbitrary JSON to Restore: it must never panic, and a
// snapshot it accepts must round-trip.
func FuzzRestore(f *testing.F) {
	e, _ := New(Config{Rooms: 2, Round: time.Minute, Countdown: time.Second, MinLobby: 2}, 1)
	for _, k := range []string{"a", "b", "c"} {
		e.Join(t0, k)
		e.EnterLobby(t0, k)
	}
	e.Advance(t0.Add(time.Second))
	seed, _ := json.Marshal(e.Snapshot())
	f.Add(seed)
	f.Add([]byte(`{"version":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s Snapshot
		if json.Unmarshal(data, &s) != nil {
			return
		}
		r, err := Restore(s)
		if err != nil {
			return
		}
		again := r.Snapshot()
		r2, err := Restore(again)
		if err != nil {
			t.Fatalf("accepted snapshot does not restore again: %v", err)
		}
		if !reflect.DeepEqual(r2.Snapshot(), again) {
			t.Fatal("snapshot not stable")
		}
		// It must also run.
		at, _ := r.NextDeadline()
		r.Advance(at)
		r.Advance(at.Add(time.Hour))
	})
}
