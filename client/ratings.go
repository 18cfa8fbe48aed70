package client

import (
	"context"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/durationpb"

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

// ListRatingHistory pages through a player's changes under one rating,
// newest first: those before beforeSeq (0: the newest), at most limit
// (50 when 0, 500 at most).
func (c *Client) ListRatingHistory(ctx context.Context, playerID, rating string, beforeSeq int64, limit int) ([]*cupidv1.RatingChange, error) {
	res, err := c.Ratings.ListRatingHistory(ctx, connect.NewRequest(&cupidv1.ListRatingHistoryRequest{PlayerId: playerID, Rating: rating, BeforeSeq: beforeSeq, Limit: int32(limit)}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetChanges(), nil
}

// SetLowPriority marks a player low priority for a time, a number of
// rated games, or both (whichever ends first; zero leaves one out),
// replacing an earlier mark.
func (c *Client) SetLowPriority(ctx context.Context, playerID string, d time.Duration, games int, reason string) (*cupidv1.LowPriority, error) {
	req := &cupidv1.SetLowPriorityRequest{PlayerId: playerID, Games: int32(games), Reason: reason}
	if d != 0 {
		req.Duration = durationpb.New(d)
	}
	res, err := c.Ratings.SetLowPriority(ctx, connect.NewRequest(req))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetLowPriority(), nil
}

// ClearLowPriority takes a player's low-priority mark away.
func (c *Client) ClearLowPriority(ctx context.Context, playerID string) error {
	_, err := c.Ratings.ClearLowPriority(ctx, connect.NewRequest(&cupidv1.ClearLowPriorityRequest{PlayerId: playerID}))
	return err
}
