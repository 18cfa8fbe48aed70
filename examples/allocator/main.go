// Command allocator is an example game backend: it follows a queue's
// matches on a Cupid server, starts a (fake) game server for each new match
// and assigns the match to it, so that the players' watchers hear where to
// connect. It remembers the last match event it handled in a file, so a
// restart resumes after it and allocates no match twice.
//
//	go run ./examples/allocator --queue duel --state /tmp/allocator.seq
//
// The game server is a TCP listener on 127.0.0.1 that greets each
// connection with its session id and the player ids of the match: enough
// to see the hand-off end to end (`nc 127.0.0.1 PORT`).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"

	"connectrpc.com/connect"

	"github.com/cupid-match/cupid/client"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

func main() {
	target := flag.String("target", "http://127.0.0.1:7070", "the Cupid server")
	queue := flag.String("queue", "duel", "the queue whose matches to allocate")
	state := flag.String("state", "allocator.seq", "file keeping the last match event handled")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	c := client.New(*target, client.WithServerKey(os.Getenv("CUPID_KEY")))
	a := &Allocator{Client: c, Queue: *queue, State: *state, Log: log.Printf}
	if err := a.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
		log.Fatal(err)
	}
	a.Close()
}

// Allocator assigns every match of a queue a game server.
type Allocator struct {
	Client *client.Client
	Queue  string
	// State is the file holding the last match event's sequence number.
	State string
	Log   func(format string, args ...any)

	mu      sync.Mutex
	servers []*GameServer
}

// Run follows the queue's match log from the saved sequence number until
// ctx ends.
func (a *Allocator) Run(ctx context.Context) error {
	after, err := a.load()
	if err != nil {
		return err
	}
	return a.Client.WatchMatches(ctx, a.Queue, after, func(ev *cupidv1.MatchEvent) error {
		if ev.GetKind() == "formed" {
			m := ev.GetMatch()
			gs, err := StartGameServer(m)
			if err != nil {
				return err
			}
			_, err = a.Client.AssignMatch(ctx, m.GetId(), &cupidv1.Assignment{
				Server: gs.Addr(), SessionId: "session-" + m.GetId(),
				Connection: map[string]string{"protocol": "tcp"},
			})
			switch {
			case connect.CodeOf(err) == connect.CodeFailedPrecondition:
				// Assigned (by us before a crash, or by someone else) or
				// released since it formed: nothing to do.
				gs.Close()
				a.Log("match %s: no longer waits for a server (%v)", m.GetId(), err)
			case err != nil:
				gs.Close()
				if ctx.Err() != nil {
					return ctx.Err() // stopped while asking
				}
				return fmt.Errorf("assigning match %s: %w", m.GetId(), err)
			default:
				a.mu.Lock()
				a.servers = append(a.servers, gs)
				a.mu.Unlock()
				a.Log("match %s: players %s on %s", m.GetId(), strings.Join(players(m), ", "), gs.Addr())
			}
		}
		// Saved after the work: a crash in between allocates the match
		// again, and the second AssignMatch is refused (and skipped above),
		// never doubled.
		return a.save(ev.GetSeq())
	})
}

// Close stops the game servers.
func (a *Allocator) Close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, gs := range a.servers {
		gs.Close()
	}
}

func (a *Allocator) load() (int64, error) {
	b, err := os.ReadFile(a.State)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	seq, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: not a sequence number: %w", a.State, err)
	}
	return seq, nil
}

func (a *Allocator) save(seq int64) error {
	tmp := a.State + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.FormatInt(seq, 10)+"\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, a.State)
}

func players(m *cupidv1.Match) []string {
	var ids []string
	for _, t := range m.GetTeams() {
		ids = append(ids, t.GetPlayerIds()...)
	}
	return ids
}

// GameServer is a stand-in for a real game server: it greets each
// connection with its session and players.
type GameServer struct {
	ln    net.Listener
	greet string
}

// StartGameServer listens on a free port of 127.0.0.1 for one match.
func StartGameServer(m *cupidv1.Match) (*GameServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	gs := &GameServer{ln: ln, greet: fmt.Sprintf("session-%s %s\n", m.GetId(), strings.Join(players(m), " "))}
	go gs.serve()
	return gs, nil
}

// Addr is where players connect.
func (gs *GameServer) Addr() string { return gs.ln.Addr().String() }

func (gs *GameServer) serve() {
	for {
		c, err := gs.ln.Accept()
		if err != nil {
			return
		}
		fmt.Fprint(c, gs.greet)
		c.Close()
	}
}

// Close stops listening.
func (gs *GameServer) Close() { gs.ln.Close() }
