package client

import (
	"context"

	"connectrpc.com/connect"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// CheckRuleset validates a ruleset document (JSON) without applying it.
// It returns every problem, each with its JSON path, line and column;
// none when the ruleset is valid. err is for the call itself.
func (c *Client) CheckRuleset(ctx context.Context, ruleset string) ([]*cupidv1.RulesetProblem, error) {
	res, err := c.Rulesets.ValidateRuleset(ctx, connect.NewRequest(&cupidv1.ValidateRulesetRequest{Ruleset: ruleset}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetProblems(), nil
}

// GetRuleset returns a queue's current ruleset (JSON) and its version.
func (c *Client) GetRuleset(ctx context.Context, queue string) (ruleset string, version int, err error) {
	res, err := c.Rulesets.GetRuleset(ctx, connect.NewRequest(&cupidv1.GetRulesetRequest{Queue: queue}))
	if err != nil {
		return "", 0, err
	}
	return res.Msg.GetRuleset(), int(res.Msg.GetVersion()), nil
}

// PutRuleset replaces a queue's ruleset while the server runs and returns
// the new version; waiting tickets keep waiting. With expectedVersion
// above 0 it succeeds only if the current version is that one (two
// editors cannot overwrite each other: the second gets
// failed_precondition). An invalid ruleset is refused with
// invalid_argument naming every problem, and changes nothing.
func (c *Client) PutRuleset(ctx context.Context, queue, ruleset string, expectedVersion int) (int, error) {
	res, err := c.Rulesets.PutRuleset(ctx, connect.NewRequest(&cupidv1.PutRulesetRequest{Queue: queue, Ruleset: ruleset, ExpectedVersion: int32(expectedVersion)}))
	if err != nil {
		return 0, err
	}
	return int(res.Msg.GetVersion()), nil
}

// ImportRuleset converts another matchmaker's rules ("flexmatch", "nakama"
// or "openmatch") into a Cupid ruleset, with a report of what became what;
// nothing changes on the server (docs/importing.md). A source that cannot
// be imported is not an error: the answer's outcome is "refused", and
// Refused says why.
func (c *Client) ImportRuleset(ctx context.Context, from, source string) (*cupidv1.ImportRulesetResponse, error) {
	res, err := c.Rulesets.ImportRuleset(ctx, connect.NewRequest(&cupidv1.ImportRulesetRequest{From: from, Source: source}))
	if err != nil {
		return nil, err
	}
	return res.Msg, nil
}
