// Command allocator is an example game backend: it follows a queue's
// matches on a Cupid server, starts a (fake) game server for each new match
// and assigns the match to it, so that the players' watchers hear where to
// connect. It remembers the last match event it handled in a file, so a
// restart resumes after it and allocates no match twice.
//
//	go run ./examples/allocator --queue duel --state /tmp/allocator.seq --game-length 10m
//
// A match is a game session: players who join it by backfill (a queue with
// auto_backfill, or a leaver replaced within its leaver_window) are told
// the same server and let in; a player who leaves is reported to Cupid;
// after --game-length the allocator ends the session and stops its server.
//
// The game server is a TCP listener on 127.0.0.1 that speaks one line at a
// time: "join PLAYER" is answered with the session id and the players of
// the game, or a refusal for someone not in it; "leave" then takes the
// player out of the game (`nc 127.0.0.1 PORT`).
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"connectrpc.com/connect"

	"github.com/cupid-match/cupid/client"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

func main() {
	target := flag.String("target", "http://127.0.0.1:7070", "the Cupid server")
	queue := flag.String("queue", "duel", "the queue whose matches to allocate")
	state := flag.String("state", "", "file keeping the last match event handled (default: allocator-QUEUE.seq in the user's cache directory)")
	length := flag.Duration("game-length", 0, "end each game session this long after it started (0: never)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *state == "" {
		path, err := defaultState(*queue)
		if err != nil {
			log.Fatal(err)
		}
		*state = path
	}
	c := client.New(*target, client.WithServerKey(os.Getenv("CUPID_KEY")))
	a := &Allocator{Client: c, Queue: *queue, State: *state, Log: log.Printf, GameLength: *length}
	if err := a.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
		log.Fatal(err)
	}
	a.Close()
}

// defaultState is where the allocator keeps its place when --state is not
// given: in the user's cache directory, not the current one, so running
// the example from a checkout leaves nothing in the repository.
func defaultState(queue string) (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	dir = filepath.Join(dir, "cupid")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return filepath.Join(dir, "allocator-"+queue+".seq"), nil
}

// Allocator assigns every match of a queue a game server and runs the
// match's game session on it.
type Allocator struct {
	Client *client.Client
	Queue  string
	// State is the file holding the last match event's sequence number.
	State string
	Log   func(format string, args ...any)
	// GameLength ends each session that long after its server started;
	// zero leaves sessions running until the allocator stops.
	GameLength time.Duration

	mu    sync.Mutex
	games map[string]*GameServer // by match id
}

// Run follows the queue's match log from the saved sequence number until
// ctx ends.
func (a *Allocator) Run(ctx context.Context) error {
	after, err := a.load()
	if err != nil {
		return err
	}
	return a.Client.WatchMatches(ctx, a.Queue, after, func(ev *cupidv1.MatchEvent) error {
		m := ev.GetMatch()
		switch ev.GetKind() {
		case "formed":
			if err := a.allocate(ctx, m); err != nil {
				return err
			}
		case "backfilled":
			// The newcomers were told this game's server, which asks
			// Cupid who is in the game when someone joins.
			a.Log("match %s: %s joined a running game", m.GetId(), strings.Join(ev.GetPlayerIds(), ", "))
		}
		// Saved after the work: a crash in between allocates the match
		// again, and the second AssignMatch is refused (and skipped),
		// never doubled.
		return a.save(ev.GetSeq())
	})
}

// allocate starts a game server for a formed match and assigns it.
func (a *Allocator) allocate(ctx context.Context, m *cupidv1.Match) error {
	gs, err := a.startGame(m)
	if err != nil {
		return err
	}
	// Known before it is assigned: its players may connect, and its game
	// end, as soon as Cupid has stored the assignment.
	a.mu.Lock()
	if a.games == nil {
		a.games = map[string]*GameServer{}
	}
	a.games[m.GetId()] = gs
	a.mu.Unlock()
	_, err = a.Client.AssignMatch(ctx, m.GetId(), &cupidv1.Assignment{
		Server: gs.Addr(), SessionId: "session-" + m.GetId(),
		Connection: map[string]string{"protocol": "tcp"},
	})
	if err != nil {
		a.mu.Lock()
		delete(a.games, m.GetId())
		a.mu.Unlock()
		gs.Close()
	}
	switch {
	case connect.CodeOf(err) == connect.CodeFailedPrecondition:
		// Assigned (by us before a crash, or by someone else) or
		// released since it formed: nothing to do.
		a.Log("match %s: no longer waits for a server (%v)", m.GetId(), err)
		return nil
	case err != nil:
		if ctx.Err() != nil {
			return ctx.Err() // stopped while asking
		}
		return fmt.Errorf("assigning match %s: %w", m.GetId(), err)
	}
	a.mu.Lock()
	gs.assigned = true
	a.mu.Unlock()
	a.Log("match %s: players %s on %s", m.GetId(), strings.Join(players(m), ", "), gs.Addr())
	if a.GameLength > 0 {
		id := m.GetId()
		time.AfterFunc(a.GameLength, func() {
			if err := a.EndGame(context.Background(), id); err != nil {
				a.Log("match %s: ending the session: %v", id, err)
			}
		})
	}
	return nil
}

// startGame starts the stand-in server of a match; players who leave it
// are reported to Cupid.
func (a *Allocator) startGame(m *cupidv1.Match) (*GameServer, error) {
	id := m.GetId()
	return StartGameServer(m, GameHooks{
		Refresh: func(ctx context.Context) ([]string, error) {
			r, err := a.Client.GetMatch(ctx, id)
			if err != nil {
				return nil, err
			}
			return players(r.GetMatch()), nil
		},
		Left: func(ctx context.Context, player string) ([]string, error) {
			r, err := a.Client.ReportLeavers(ctx, id, player)
			if err != nil {
				return nil, err
			}
			a.Log("match %s: %s left; open to backfill: %v", id, player, r.GetMatch().GetBackfill())
			return players(r.GetMatch()), nil
		},
	})
}

// Games is how many games the allocator runs: started and assigned.
func (a *Allocator) Games() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, gs := range a.games {
		if gs.assigned {
			n++
		}
	}
	return n
}

// EndGame ends a match's game session on Cupid and stops its server.
func (a *Allocator) EndGame(ctx context.Context, id string) error {
	_, err := a.Client.EndSession(ctx, id)
	if err != nil && connect.CodeOf(err) != connect.CodeFailedPrecondition {
		return err // a session over already (ended or released) only needs its server stopped
	}
	a.mu.Lock()
	gs := a.games[id]
	delete(a.games, id)
	a.mu.Unlock()
	if gs != nil {
		gs.Close()
	}
	a.Log("match %s: game over", id)
	return nil
}

// Close stops the game servers.
func (a *Allocator) Close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, gs := range a.games {
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

// GameHooks connect a stand-in game server to the backend.
type GameHooks struct {
	// Refresh reads the game's players from Cupid when a player joins.
	Refresh func(ctx context.Context) ([]string, error)
	// Left reports a player who left and returns the game's players now.
	Left func(ctx context.Context, player string) ([]string, error)
}

// GameServer is a stand-in for a real game server: it lets in the players
// of its session and reports those who leave.
type GameServer struct {
	ln      net.Listener
	session string
	hooks   GameHooks
	// assigned is set (under the allocator's lock) once Cupid stored
	// the assignment.
	assigned bool

	mu      sync.Mutex
	players []string
}

// StartGameServer listens on a free port of 127.0.0.1 for one match.
func StartGameServer(m *cupidv1.Match, hooks GameHooks) (*GameServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	gs := &GameServer{ln: ln, session: "session-" + m.GetId(), hooks: hooks, players: players(m)}
	go gs.serve()
	return gs, nil
}

// Addr is where players connect.
func (gs *GameServer) Addr() string { return gs.ln.Addr().String() }

func (gs *GameServer) setPlayers(ps []string) {
	gs.mu.Lock()
	gs.players = ps
	gs.mu.Unlock()
}

func (gs *GameServer) has(p string) (bool, []string) {
	gs.mu.Lock()
	defer gs.mu.Unlock()
	return slices.Contains(gs.players, p), slices.Clone(gs.players)
}

func (gs *GameServer) serve() {
	for {
		c, err := gs.ln.Accept()
		if err != nil {
			return
		}
		go gs.handle(c)
	}
}

// handle speaks with one player: "join PLAYER", then maybe "leave".
func (gs *GameServer) handle(c net.Conn) {
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	player, ok := strings.CutPrefix(strings.TrimSpace(line), "join ")
	if err != nil || !ok {
		fmt.Fprintln(c, "say: join PLAYER")
		return
	}
	// Cupid says who is in the game now: a player backfilled a moment ago
	// may come before the backend's stream tells of him, and one who left
	// must not come back on an old list.
	if gs.hooks.Refresh != nil {
		if ps, err := gs.hooks.Refresh(ctx); err == nil {
			gs.setPlayers(ps)
		}
	}
	in, now := gs.has(player)
	if !in {
		fmt.Fprintf(c, "refused: %s is not in this game\n", player)
		return
	}
	fmt.Fprintf(c, "%s %s\n", gs.session, strings.Join(now, " "))
	line, err = r.ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "leave" {
		return // still playing, as far as this stand-in knows
	}
	if gs.hooks.Left != nil {
		ps, err := gs.hooks.Left(ctx, player)
		if err != nil {
			fmt.Fprintf(c, "error: %v\n", err)
			return
		}
		gs.setPlayers(ps)
	}
	fmt.Fprintln(c, "bye")
}

// Close stops listening.
func (gs *GameServer) Close() { gs.ln.Close() }
