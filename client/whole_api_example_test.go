package client_test

import (
	"context"
	"fmt"
	"slices"

	"github.com/cupid-match/cupid/client"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// Attributes are plain Go values: numbers, strings, booleans and lists of
// strings. A ticket is read back with its state.
func ExampleNewTicket() {
	s, stop, err := newServer()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	c := client.New(s.URL)
	ctx := context.Background()

	req, err := client.NewTicket("squad", []string{"ann", "bob"}, []map[string]any{
		{"mmr": 1500, "roles": []string{"tank", "healer"}},
		{"mmr": 1480, "mic": true},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	tk, err := c.CreateTicket(ctx, req)
	if err != nil {
		fmt.Println(err)
		return
	}
	got, err := c.GetTicket(ctx, tk.GetId())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(got.GetState())
	fmt.Println(client.Values(got.GetPlayers()[0].GetAttributes())["roles"])
	// Output:
	// TICKET_STATE_WAITING
	// [tank healer]
}

// A tool checks a ruleset before putting it, and puts it only over the
// version it read, so it cannot overwrite another editor's change.
func ExampleClient_PutRuleset() {
	s, stop, err := newServer()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	c := client.New(s.URL)
	ctx := context.Background()

	problems, err := c.CheckRuleset(ctx, `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1}, "matching_rule": [{"attribute": "mmr", "criteria": "distance"}]}`)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range problems {
		fmt.Println(p.GetPath()+":", p.GetMessage())
	}
	_, version, err := c.GetRuleset(ctx, "duel")
	if err != nil {
		fmt.Println(err)
		return
	}
	next, err := c.PutRuleset(ctx, "duel", duel, version)
	fmt.Println(next == version+1, err)
	// Output:
	// matching_rule[0].reference: required
	// true <nil>
}

// An async game finds an opponent for an attacker: the nearest in MMR
// whose guild is not his.
func ExampleFinder_FindOpponent() {
	s, stop, err := newServer()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	c := client.New(s.URL)
	ctx := context.Background()
	arena := c.Finder("arena")

	for _, m := range []client.Model{
		{ID: "ann", MMR: 1500, Attributes: map[string]any{"guild": "red"}},
		{ID: "bob", MMR: 1450, Attributes: map[string]any{"guild": "blue"}},
	} {
		if _, err := arena.UpdatePlayer(ctx, m); err != nil {
			fmt.Println(err)
			return
		}
	}
	found, err := arena.FindOpponent(ctx, client.Model{ID: "cat", MMR: 1510, Attributes: map[string]any{"guild": "red"}},
		client.FindOptions{ReturnModel: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(found.GetPlayerId(), client.ModelOf(found.GetModel()).Attributes["guild"])
	// Output:
	// bob blue
}

// A speed-dating round: people join, enter the lobby, and the organiser
// starts a round that pairs them.
func ExampleEvent() {
	s, stop, err := newServer()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer stop()
	c := client.New(s.URL)
	ctx := context.Background()

	if _, err := c.CreateEvent(ctx, &cupidv1.CreateEventRequest{Id: "friday", Settings: &cupidv1.EventSettings{Rooms: 4}}); err != nil {
		fmt.Println(err)
		return
	}
	ev := c.Event("friday")
	for _, p := range []string{"ann", "bob"} {
		if _, err := ev.Join(ctx, p, ""); err != nil {
			fmt.Println(err)
			return
		}
		if _, err := ev.EnterLobby(ctx, p); err != nil {
			fmt.Println(err)
			return
		}
	}
	if _, err := ev.StartRound(ctx); err != nil {
		fmt.Println(err)
		return
	}
	now, err := ev.Get(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range now.GetPairs() {
		pair := []string{p.GetA(), p.GetB()}
		slices.Sort(pair)
		fmt.Println("room", p.GetRoom(), pair)
	}
	// Output:
	// room 1 [ann bob]
}
