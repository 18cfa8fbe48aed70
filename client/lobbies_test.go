package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/cupid-match/cupid/client"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// TestLobby: a host opens a lobby, a player finds it in the list and joins
// by code, a watcher hears each change, and the started lobby's match
// comes on the queue's match stream.
func TestLobby(t *testing.T) {
	s := startServer(t)
	c := client.New(s.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a guard only
	defer cancel()
	l, err := c.CreateLobby(ctx, "ann", &cupidv1.LobbySettings{Queue: "duel", Teams: 2, TeamSize: 1, Attributes: map[string]string{"map": "dust"}})
	if err != nil {
		t.Fatal(err)
	}
	page, err := c.ListLobbies(ctx, &cupidv1.ListLobbiesRequest{Attributes: map[string]string{"map": "dust"}})
	if err != nil || len(page.GetLobbies()) != 1 {
		t.Fatalf("list: %v %v", page, err)
	}
	kinds := make(chan string, 16)
	watched := make(chan error, 1)
	go func() {
		watched <- c.Lobby(l.GetId(), "").Watch(ctx, 0, func(ev *cupidv1.LobbyEvent) error { kinds <- ev.GetKind(); return nil })
	}()
	if k := <-kinds; k != "watching" {
		t.Fatalf("first: %s", k)
	}
	if _, err := c.JoinLobbyByCode(ctx, l.GetCode(), "bob"); err != nil {
		t.Fatal(err)
	}
	ann, bob := c.Lobby(l.GetId(), "ann"), c.Lobby(l.GetId(), "bob")
	for _, m := range []*client.Lobby{ann, bob} {
		if _, err := m.SetReady(ctx, true); err != nil {
			t.Fatal(err)
		}
	}
	res, err := ann.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-watched; err != nil {
		t.Fatal(err)
	}
	close(kinds)
	var got []string
	for k := range kinds {
		got = append(got, k)
	}
	if want := "joined ready ready starting started"; joinWords(got) != want {
		t.Fatalf("events %q, want %q", joinWords(got), want)
	}
	found := make(chan *cupidv1.MatchEvent, 1)
	err = c.WatchMatches(ctx, "duel", 0, func(ev *cupidv1.MatchEvent) error {
		if ev.GetMatch().GetId() == res.GetMatch().GetId() {
			found <- ev
			return errFound
		}
		return nil
	})
	if err != errFound || (<-found).GetKind() != "formed" {
		t.Fatalf("the lobby's match on the match stream: %v", err)
	}
}

var errFound = errorString("found")

type errorString string

func (e errorString) Error() string { return string(e) }

func joinWords(ws []string) string {
	out := ""
	for i, w := range ws {
		if i > 0 {
			out += " "
		}
		out += w
	}
	return out
}
