package client

import (
	"context"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/durationpb"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// ListEncounters returns a player's encounters, newest first, at most
// limit (the server's history bound when 0).
func (c *Client) ListEncounters(ctx context.Context, playerID string, limit int) ([]*cupidv1.Encounter, error) {
	res, err := c.Encounters.ListEncounters(ctx, connect.NewRequest(&cupidv1.ListEncountersRequest{PlayerId: playerID, Limit: int32(limit)}))
	if err != nil {
		return nil, err
	}
	return res.Msg.Encounters, nil
}

// Block puts other on player's block list: the two are never put together
// again, in any mode. Blocking again is no error.
func (c *Client) Block(ctx context.Context, playerID, otherID string) (*cupidv1.ListEntry, error) {
	res, err := c.Encounters.Block(ctx, connect.NewRequest(&cupidv1.BlockRequest{PlayerId: playerID, OtherId: otherID}))
	if err != nil {
		return nil, err
	}
	return res.Msg.Entry, nil
}

// Unblock takes other off player's block list.
func (c *Client) Unblock(ctx context.Context, playerID, otherID string) error {
	_, err := c.Encounters.Unblock(ctx, connect.NewRequest(&cupidv1.UnblockRequest{PlayerId: playerID, OtherId: otherID}))
	return err
}

// ListBlocks returns player's own block list.
func (c *Client) ListBlocks(ctx context.Context, playerID string) ([]*cupidv1.ListEntry, error) {
	res, err := c.Encounters.ListBlocks(ctx, connect.NewRequest(&cupidv1.ListBlocksRequest{PlayerId: playerID}))
	if err != nil {
		return nil, err
	}
	return res.Msg.Entries, nil
}

// Avoid puts other on player's avoid list with a weight in (0, 1] (1 when
// 0).
func (c *Client) Avoid(ctx context.Context, playerID, otherID string, weight float64) (*cupidv1.ListEntry, error) {
	res, err := c.Encounters.Avoid(ctx, connect.NewRequest(&cupidv1.AvoidRequest{PlayerId: playerID, OtherId: otherID, Weight: weight}))
	if err != nil {
		return nil, err
	}
	return res.Msg.Entry, nil
}

// Unavoid takes other off player's avoid list.
func (c *Client) Unavoid(ctx context.Context, playerID, otherID string) error {
	_, err := c.Encounters.Unavoid(ctx, connect.NewRequest(&cupidv1.UnavoidRequest{PlayerId: playerID, OtherId: otherID}))
	return err
}

// ListAvoids returns player's own avoid list.
func (c *Client) ListAvoids(ctx context.Context, playerID string) ([]*cupidv1.ListEntry, error) {
	res, err := c.Encounters.ListAvoids(ctx, connect.NewRequest(&cupidv1.ListAvoidsRequest{PlayerId: playerID}))
	if err != nil {
		return nil, err
	}
	return res.Msg.Entries, nil
}

// CheckPlayers says whether any two of players must never meet, and
// which two (server keys only).
func (c *Client) CheckPlayers(ctx context.Context, playerIDs ...string) (blocked bool, pair []string, err error) {
	res, err := c.Encounters.CheckPlayers(ctx, connect.NewRequest(&cupidv1.CheckPlayersRequest{PlayerIds: playerIDs}))
	if err != nil {
		return false, nil, err
	}
	return res.Msg.Blocked, res.Msg.Pair, nil
}

// RecordEncounter records a meeting Cupid did not make (server keys only);
// recording the same ref again stores nothing more.
func (c *Client) RecordEncounter(ctx context.Context, req *cupidv1.RecordEncounterRequest) (int, error) {
	res, err := c.Encounters.RecordEncounter(ctx, connect.NewRequest(req))
	if err != nil {
		return 0, err
	}
	return int(res.Msg.Encounters), nil
}

// Revenge lists the players who attacked player within a time (12 hours
// when 0).
func (c *Client) Revenge(ctx context.Context, playerID string, within time.Duration) ([]string, error) {
	req := &cupidv1.RevengeRequest{PlayerId: playerID}
	if within > 0 {
		req.Within = durationpb.New(within)
	}
	res, err := c.Encounters.Revenge(ctx, connect.NewRequest(req))
	if err != nil {
		return nil, err
	}
	return res.Msg.PlayerIds, nil
}

// EraseEncounters deletes a player's history and own lists (admin keys
// only).
func (c *Client) EraseEncounters(ctx context.Context, playerID string) error {
	_, err := c.Encounters.Erase(ctx, connect.NewRequest(&cupidv1.EraseRequest{PlayerId: playerID}))
	return err
}

// RequestRematch asks other for a rematch of the match ref the two just
// played; it returns the rematch (its id for AnswerRematch).
func (c *Client) RequestRematch(ctx context.Context, playerID, otherID, ref string) (*cupidv1.Rematch, error) {
	res, err := c.Encounters.RequestRematch(ctx, connect.NewRequest(&cupidv1.RequestRematchRequest{PlayerId: playerID, OtherId: otherID, Ref: ref}))
	if err != nil {
		return nil, err
	}
	return res.Msg.Rematch, nil
}

// AnswerRematch accepts or declines a rematch; once both accepted, the
// returned rematch names the match formed (MatchId).
func (c *Client) AnswerRematch(ctx context.Context, playerID, rematchID string, accept bool) (*cupidv1.Rematch, error) {
	res, err := c.Encounters.AnswerRematch(ctx, connect.NewRequest(&cupidv1.AnswerRematchRequest{PlayerId: playerID, RematchId: rematchID, Accept: accept}))
	if err != nil {
		return nil, err
	}
	return res.Msg.Rematch, nil
}

// GetRematch reads one of player's rematches.
func (c *Client) GetRematch(ctx context.Context, playerID, rematchID string) (*cupidv1.Rematch, error) {
	res, err := c.Encounters.GetRematch(ctx, connect.NewRequest(&cupidv1.GetRematchRequest{PlayerId: playerID, RematchId: rematchID}))
	if err != nil {
		return nil, err
	}
	return res.Msg.Rematch, nil
}

// ReportPlayer reports other, met in the match ref, for a configured
// reason.
func (c *Client) ReportPlayer(ctx context.Context, playerID, otherID, ref, reason, note string) (*cupidv1.PlayerReport, error) {
	res, err := c.Encounters.ReportPlayer(ctx, connect.NewRequest(&cupidv1.ReportPlayerRequest{PlayerId: playerID, OtherId: otherID, Ref: ref, Reason: reason, Note: note}))
	if err != nil {
		return nil, err
	}
	return res.Msg.Report, nil
}

// ListReports lists a player's reports (admin keys only).
func (c *Client) ListReports(ctx context.Context, playerID string) ([]*cupidv1.PlayerReport, error) {
	res, err := c.Encounters.ListReports(ctx, connect.NewRequest(&cupidv1.ListReportsRequest{PlayerId: playerID}))
	if err != nil {
		return nil, err
	}
	return res.Msg.Reports, nil
}
