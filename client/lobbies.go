package client

import (
	"context"
	"errors"

	"connectrpc.com/connect"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// CreateLobby opens a custom-game lobby hosted by player (docs/lobbies.md).
func (c *Client) CreateLobby(ctx context.Context, player string, settings *cupidv1.LobbySettings) (*cupidv1.Lobby, error) {
	res, err := c.Lobbies.CreateLobby(ctx, connect.NewRequest(&cupidv1.CreateLobbyRequest{Player: player, Settings: settings}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetLobby(), nil
}

// ListLobbies returns one page of open public lobbies; pass the response's
// NextCursor as req.Cursor for the next page.
func (c *Client) ListLobbies(ctx context.Context, req *cupidv1.ListLobbiesRequest) (*cupidv1.ListLobbiesResponse, error) {
	res, err := c.Lobbies.ListLobbies(ctx, connect.NewRequest(req))
	if err != nil {
		return nil, err
	}
	return res.Msg, nil
}

// JoinLobbyByCode joins the lobby with this code as player, on the
// emptiest team.
func (c *Client) JoinLobbyByCode(ctx context.Context, code, player string) (*cupidv1.Lobby, error) {
	res, err := c.Lobbies.JoinLobby(ctx, connect.NewRequest(&cupidv1.JoinLobbyRequest{Code: code, Player: player}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetLobby(), nil
}

// Lobby is one lobby's calls, each made as player (a player token's own
// player, or anyone for a server key). It is a name, not a copy: every
// call asks the server.
type Lobby struct {
	c          *Client
	id, player string
}

// Lobby returns the calls of the lobby with this id, made as player.
func (c *Client) Lobby(id, player string) *Lobby { return &Lobby{c: c, id: id, player: player} }

// ID is the lobby's id.
func (l *Lobby) ID() string { return l.id }

func lobbyOf(res *connect.Response[cupidv1.LobbyResponse], err error) (*cupidv1.Lobby, error) {
	if err != nil {
		return nil, err
	}
	return res.Msg.GetLobby(), nil
}

// Get returns the lobby as it is.
func (l *Lobby) Get(ctx context.Context) (*cupidv1.Lobby, error) {
	return lobbyOf(l.c.Lobbies.GetLobby(ctx, connect.NewRequest(&cupidv1.GetLobbyRequest{LobbyId: l.id})))
}

// Join joins the (public) lobby by id; team nil places the player on the
// emptiest team.
func (l *Lobby) Join(ctx context.Context, team *int32) (*cupidv1.Lobby, error) {
	return lobbyOf(l.c.Lobbies.JoinLobby(ctx, connect.NewRequest(&cupidv1.JoinLobbyRequest{LobbyId: l.id, Player: l.player, Team: team})))
}

// Leave leaves the lobby.
func (l *Lobby) Leave(ctx context.Context) (*cupidv1.Lobby, error) {
	return lobbyOf(l.c.Lobbies.LeaveLobby(ctx, connect.NewRequest(&cupidv1.LobbyPlayerRequest{LobbyId: l.id, Player: l.player})))
}

// SetTeam moves the player to a team (nil: the emptiest).
func (l *Lobby) SetTeam(ctx context.Context, team *int32) (*cupidv1.Lobby, error) {
	return lobbyOf(l.c.Lobbies.SetTeam(ctx, connect.NewRequest(&cupidv1.SetTeamRequest{LobbyId: l.id, Player: l.player, Team: team})))
}

// SetReady marks the player ready or not.
func (l *Lobby) SetReady(ctx context.Context, ready bool) (*cupidv1.Lobby, error) {
	return lobbyOf(l.c.Lobbies.SetReady(ctx, connect.NewRequest(&cupidv1.SetReadyRequest{LobbyId: l.id, Player: l.player, Ready: ready})))
}

// Kick removes target (the host's).
func (l *Lobby) Kick(ctx context.Context, target string) (*cupidv1.Lobby, error) {
	return lobbyOf(l.c.Lobbies.Kick(ctx, connect.NewRequest(&cupidv1.LobbyTargetRequest{LobbyId: l.id, Player: l.player, Target: target})))
}

// Lock locks or unlocks the lobby (the host's).
func (l *Lobby) Lock(ctx context.Context, locked bool) (*cupidv1.Lobby, error) {
	return lobbyOf(l.c.Lobbies.Lock(ctx, connect.NewRequest(&cupidv1.LockRequest{LobbyId: l.id, Player: l.player, Locked: locked})))
}

// HandOverHost makes target the host (the host's).
func (l *Lobby) HandOverHost(ctx context.Context, target string) (*cupidv1.Lobby, error) {
	return lobbyOf(l.c.Lobbies.HandOverHost(ctx, connect.NewRequest(&cupidv1.LobbyTargetRequest{LobbyId: l.id, Player: l.player, Target: target})))
}

// Close ends the lobby without a match (the host's).
func (l *Lobby) Close(ctx context.Context) (*cupidv1.Lobby, error) {
	return lobbyOf(l.c.Lobbies.CloseLobby(ctx, connect.NewRequest(&cupidv1.LobbyPlayerRequest{LobbyId: l.id, Player: l.player})))
}

// Start turns the lobby into a match of its queue (the host's): the
// started lobby and its match, which the queue's backend sees on
// WatchMatches.
func (l *Lobby) Start(ctx context.Context) (*cupidv1.StartLobbyResponse, error) {
	res, err := l.c.Lobbies.Start(ctx, connect.NewRequest(&cupidv1.LobbyPlayerRequest{LobbyId: l.id, Player: l.player}))
	if err != nil {
		return nil, err
	}
	return res.Msg, nil
}

// Watch calls fn with the lobby's events after afterSeq (from 0: first a
// "watching" message with the lobby as it is), each carrying the lobby,
// until the lobby starts or closes, ctx ends or fn fails. A dropped
// connection is resumed after the last event delivered, as Watch does for
// tickets, so every event arrives once.
func (l *Lobby) Watch(ctx context.Context, afterSeq int64, fn func(*cupidv1.LobbyEvent) error) error {
	done := false
	return l.c.resume(ctx, "lobby "+l.id, func(ctx context.Context) (bool, error) {
		stream, err := l.c.Lobbies.WatchLobby(ctx, connect.NewRequest(&cupidv1.WatchLobbyRequest{LobbyId: l.id, AfterSeq: afterSeq}))
		if err != nil {
			return false, err
		}
		defer stream.Close()
		progressed, err := drain(stream.Receive, stream.Msg, stream.Err, &afterSeq, func(ev *cupidv1.LobbyEvent) error {
			if ev.GetKind() == "started" || ev.GetKind() == "closed" {
				done = true
			}
			return fn(ev)
		})
		if err == nil && !done {
			err = connect.NewError(connect.CodeUnavailable, errors.New("the lobby stream ended before the lobby did"))
		}
		return progressed, err
	})
}
