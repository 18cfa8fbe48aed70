package client

import (
	"context"

	"connectrpc.com/connect"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// Shadows and canaries of candidate rulesets (docs/rollouts.md); the calls
// need an admin key.

// StartShadow runs a candidate ruleset beside a queue's live one on the
// same arrivals, committing nothing, and returns its first report.
func (c *Client) StartShadow(ctx context.Context, queue, ruleset, reason string) (*cupidv1.ShadowReport, error) {
	res, err := c.Rollouts.StartShadow(ctx, connect.NewRequest(&cupidv1.StartShadowRequest{Queue: queue, Ruleset: ruleset, Reason: reason}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetReport(), nil
}

// ShadowReport returns a queue's shadow's figures beside the live ones.
func (c *Client) ShadowReport(ctx context.Context, queue string) (*cupidv1.ShadowReport, error) {
	res, err := c.Rollouts.ShadowReport(ctx, connect.NewRequest(&cupidv1.ShadowReportRequest{Queue: queue}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetReport(), nil
}

// StopShadow ends a queue's shadow.
func (c *Client) StopShadow(ctx context.Context, queue, reason string) error {
	_, err := c.Rollouts.StopShadow(ctx, connect.NewRequest(&cupidv1.StopShadowRequest{Queue: queue, Reason: reason}))
	return err
}

// StartCanary sends share (0 < share ≤ 0.5) of a queue's new tickets to a
// candidate ruleset; guard nil takes the default guard.
func (c *Client) StartCanary(ctx context.Context, queue, ruleset string, share float64, guard *cupidv1.CanaryGuard, reason string) (*cupidv1.CanaryStatus, error) {
	res, err := c.Rollouts.StartCanary(ctx, connect.NewRequest(&cupidv1.StartCanaryRequest{Queue: queue, Ruleset: ruleset, Share: share, Guard: guard, Reason: reason}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetStatus(), nil
}

// CanaryStatus returns a queue's canary, running or decided.
func (c *Client) CanaryStatus(ctx context.Context, queue string) (*cupidv1.CanaryStatus, error) {
	res, err := c.Rollouts.CanaryStatus(ctx, connect.NewRequest(&cupidv1.CanaryStatusRequest{Queue: queue}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetStatus(), nil
}

// PromoteCanary makes a running canary's candidate the queue's ruleset.
func (c *Client) PromoteCanary(ctx context.Context, queue, reason string) (*cupidv1.CanaryStatus, error) {
	res, err := c.Rollouts.PromoteCanary(ctx, connect.NewRequest(&cupidv1.PromoteCanaryRequest{Queue: queue, Reason: reason}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetStatus(), nil
}

// RollbackCanary ends a running canary: new tickets all go live.
func (c *Client) RollbackCanary(ctx context.Context, queue, reason string) (*cupidv1.CanaryStatus, error) {
	res, err := c.Rollouts.RollbackCanary(ctx, connect.NewRequest(&cupidv1.RollbackCanaryRequest{Queue: queue, Reason: reason}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetStatus(), nil
}
