package client

import (
	"context"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// The game-session calls of a backend: a match, once formed, is a session
// whose seats backfill can fill (see docs/matches.md). Each returns the
// session as the server stored it after the change; a refused change
// (the session is over, backfill already closed, a player not in it) is a
// failed_precondition error and changes nothing.

// OpenBackfill opens a live session to backfill: waiting players of its
// queue join it, before new matches form, until its seats are full.
func (c *Client) OpenBackfill(ctx context.Context, matchID string) (*cupidv1.MatchRecord, error) {
	res, err := c.Matches.OpenBackfill(ctx, connect.NewRequest(&cupidv1.OpenBackfillRequest{Id: matchID}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetMatch(), nil
}

// CloseBackfill stops backfill into a session.
func (c *Client) CloseBackfill(ctx context.Context, matchID string) (*cupidv1.MatchRecord, error) {
	res, err := c.Matches.CloseBackfill(ctx, connect.NewRequest(&cupidv1.CloseBackfillRequest{Id: matchID}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetMatch(), nil
}

// ReportLeavers tells the server that players left a session. Within the
// queue's leaver_window of the assignment their seats are filled again by
// backfill; after it their seats close.
func (c *Client) ReportLeavers(ctx context.Context, matchID string, playerIDs ...string) (*cupidv1.MatchRecord, error) {
	res, err := c.Matches.ReportLeavers(ctx, connect.NewRequest(&cupidv1.ReportLeaversRequest{Id: matchID, PlayerIds: playerIDs}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetMatch(), nil
}

// EndSession ends a session when its game is over.
func (c *Client) EndSession(ctx context.Context, matchID string) (*cupidv1.MatchRecord, error) {
	res, err := c.Matches.EndSession(ctx, connect.NewRequest(&cupidv1.EndSessionRequest{Id: matchID}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetMatch(), nil
}

// OpenBackfillWithOptions opens backfill as OpenBackfill does, with the
// match options the game server has now (option name → values, the
// ruleset's match_options only): newcomers are compared with these rather
// than with the options the session's players queued with.
func (c *Client) OpenBackfillWithOptions(ctx context.Context, matchID string, options map[string][]string) (*cupidv1.MatchRecord, error) {
	req := &cupidv1.OpenBackfillRequest{Id: matchID, MatchOptions: map[string]*structpb.ListValue{}}
	for name, vals := range options {
		l := &structpb.ListValue{}
		for _, v := range vals {
			l.Values = append(l.Values, structpb.NewStringValue(v))
		}
		req.MatchOptions[name] = l
	}
	res, err := c.Matches.OpenBackfill(ctx, connect.NewRequest(req))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetMatch(), nil
}

// OpenBackfillWithTeams opens backfill as OpenBackfill does, with the game
// server's view of its session (like AccelByte's backfill ticket): for
// each team of the match, in its order, the players in it now — those
// Cupid matched and those the game server added itself — each with the
// attributes the game server has for them (as on tickets; none to keep a
// matched player's ticket's). They become the session's teams: a player
// of the session who is absent has left, and his seat stays open for
// backfill; newcomers are compared with the players given. A wrong team
// count, a team over its seats, a player twice or a player in another
// live match is refused, naming the field (teams[i].players[j].id …).
func (c *Client) OpenBackfillWithTeams(ctx context.Context, matchID string, teams [][]*cupidv1.Player) (*cupidv1.MatchRecord, error) {
	req := &cupidv1.OpenBackfillRequest{Id: matchID}
	for _, players := range teams {
		req.Teams = append(req.Teams, &cupidv1.BackfillTeam{Players: players})
	}
	res, err := c.Matches.OpenBackfill(ctx, connect.NewRequest(req))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetMatch(), nil
}
