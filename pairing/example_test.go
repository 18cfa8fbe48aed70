package pairing_test

import (
	"fmt"
	"time"

	"github.com/cupid-match/cupid/pairing"
)

// A server creates an event, feeds it calls with the current time, delivers
// the notifications they return, and calls Advance at NextDeadline.
func Example() {
	ev, err := pairing.New(pairing.Config{Rooms: 2, Round: 5 * time.Minute, Countdown: 30 * time.Second, MinLobby: 2}, 1)
	if err != nil {
		panic(err)
	}
	now := time.Date(2025, 6, 1, 20, 0, 0, 0, time.UTC)
	for _, name := range []string{"ann", "bob", "cat", "dan"} {
		ev.Join(now, name)
		ev.EnterLobby(now, name)
	}
	at, _ := ev.NextDeadline()
	fmt.Println("round at", at.Format(time.TimeOnly))
	pairs := 0
	for _, n := range ev.Advance(at) {
		if n.Kind == pairing.KindPaired {
			pairs++
		}
	}
	fmt.Println(pairs/2, "pairs")
	if _, err := ev.Join(at, "ann"); err != nil {
		fmt.Println(err)
	}
	// Output:
	// round at 20:00:30
	// 2 pairs
	// participant: "ann" has already joined
}
