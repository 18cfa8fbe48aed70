package client

import (
	"context"

	"connectrpc.com/connect"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// ReportResult reports a played match's result; the server rates its
// players under the rating of the match's queue. Reporting the same
// result again is safe (the answer's Repeated is then true); a different
// one is refused with failed_precondition.
func (c *Client) ReportResult(ctx context.Context, req *cupidv1.ReportResultRequest) (*cupidv1.ReportResultResponse, error) {
	res, err := c.Ratings.ReportResult(ctx, connect.NewRequest(req))
	if err != nil {
		return nil, err
	}
	return res.Msg, nil
}

// GetPlayerRatings returns a player's ratings, league, flags and
// low-priority mark.
func (c *Client) GetPlayerRatings(ctx context.Context, playerID string) (*cupidv1.GetPlayerRatingsResponse, error) {
	res, err := c.Ratings.GetPlayerRatings(ctx, connect.NewRequest(&cupidv1.GetPlayerRatingsRequest{PlayerId: playerID}))
	if err != nil {
		return nil, err
	}
	return res.Msg, nil
}
