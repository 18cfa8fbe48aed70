package client

import (
	"context"

	"connectrpc.com/connect"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// Party is one party's calls as one player makes them (docs/parties.md):
// with a player token, Player must be the token's player; with a server
// key, the player the backend acts for. It is a name, not a copy: every
// call asks the server.
type Party struct {
	c      *Client
	id     string
	player string
}

// CreateParty makes a party of one led by player, with his own attributes
// and latencies (either may be nil), and returns its calls as him.
func (c *Client) CreateParty(ctx context.Context, player string, attributes map[string]any, latencies map[string]int32) (*Party, *cupidv1.Party, error) {
	attrs, err := Attributes(attributes)
	if err != nil {
		return nil, nil, err
	}
	res, err := c.Parties.CreateParty(ctx, connect.NewRequest(&cupidv1.CreatePartyRequest{Player: player, Attributes: attrs, Latencies: latencies}))
	if err != nil {
		return nil, nil, err
	}
	return c.Party(res.Msg.GetParty().GetId(), player), res.Msg.GetParty(), nil
}

// JoinByCode joins player, with his own values, to the party whose join
// code he was given, and returns its calls as him.
func (c *Client) JoinByCode(ctx context.Context, code, player string, attributes map[string]any, latencies map[string]int32) (*Party, *cupidv1.Party, error) {
	attrs, err := Attributes(attributes)
	if err != nil {
		return nil, nil, err
	}
	res, err := c.Parties.JoinByCode(ctx, connect.NewRequest(&cupidv1.JoinByCodeRequest{Code: code, Player: player, Attributes: attrs, Latencies: latencies}))
	if err != nil {
		return nil, nil, err
	}
	return c.Party(res.Msg.GetParty().GetId(), player), res.Msg.GetParty(), nil
}

// MyParty returns the party player is in (not_found when none).
func (c *Client) MyParty(ctx context.Context, player string) (*Party, *cupidv1.Party, error) {
	res, err := c.Parties.GetParty(ctx, connect.NewRequest(&cupidv1.GetPartyRequest{Player: player}))
	if err != nil {
		return nil, nil, err
	}
	return c.Party(res.Msg.GetParty().GetId(), player), res.Msg.GetParty(), nil
}

// ListInvites lists player's pending invites, each naming its party
// (PartyId) and leader; answer one with Party(invite.PartyId, player).Answer.
func (c *Client) ListInvites(ctx context.Context, player string) ([]*cupidv1.PartyInvite, error) {
	res, err := c.Parties.ListInvites(ctx, connect.NewRequest(&cupidv1.ListInvitesRequest{Player: player}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetInvites(), nil
}

// Party returns the calls of party id made as player.
func (c *Client) Party(id, player string) *Party { return &Party{c: c, id: id, player: player} }

// ID is the party's id.
func (p *Party) ID() string { return p.id }

func party(res *connect.Response[cupidv1.PartyResponse], err error) (*cupidv1.Party, error) {
	if err != nil {
		return nil, err
	}
	return res.Msg.GetParty(), nil
}

// Get returns the party's state.
func (p *Party) Get(ctx context.Context) (*cupidv1.Party, error) {
	return party(p.c.Parties.GetParty(ctx, connect.NewRequest(&cupidv1.GetPartyRequest{PartyId: p.id, Player: p.player})))
}

// Invite invites invitee.
func (p *Party) Invite(ctx context.Context, invitee string) (*cupidv1.Party, error) {
	return party(p.c.Parties.Invite(ctx, connect.NewRequest(&cupidv1.InviteRequest{PartyId: p.id, Player: p.player, Invitee: invitee})))
}

// Answer is the invited player's answer; accepting joins him with his own
// values.
func (p *Party) Answer(ctx context.Context, accept bool, attributes map[string]any, latencies map[string]int32) (*cupidv1.Party, error) {
	attrs, err := Attributes(attributes)
	if err != nil {
		return nil, err
	}
	return party(p.c.Parties.AnswerInvite(ctx, connect.NewRequest(&cupidv1.AnswerInviteRequest{PartyId: p.id, Player: p.player, Accept: accept, Attributes: attrs, Latencies: latencies})))
}

// Leave takes the player out of the party.
func (p *Party) Leave(ctx context.Context) (*cupidv1.Party, error) {
	return party(p.c.Parties.Leave(ctx, connect.NewRequest(&cupidv1.PartyMemberRequest{PartyId: p.id, Player: p.player})))
}

// Remove is the leader's: member leaves the party.
func (p *Party) Remove(ctx context.Context, member string) (*cupidv1.Party, error) {
	return party(p.c.Parties.Remove(ctx, connect.NewRequest(&cupidv1.RemoveRequest{PartyId: p.id, Player: p.player, Member: member})))
}

// HandOver is the leader's: to leads from now on.
func (p *Party) HandOver(ctx context.Context, to string) (*cupidv1.Party, error) {
	return party(p.c.Parties.HandOver(ctx, connect.NewRequest(&cupidv1.HandOverRequest{PartyId: p.id, Player: p.player, To: to})))
}

// SetReady marks the player ready or not.
func (p *Party) SetReady(ctx context.Context, ready bool) (*cupidv1.Party, error) {
	return party(p.c.Parties.SetReady(ctx, connect.NewRequest(&cupidv1.SetPartyReadyRequest{PartyId: p.id, Player: p.player, Ready: ready})))
}

// SetMember replaces the player's own attributes and latencies.
func (p *Party) SetMember(ctx context.Context, attributes map[string]any, latencies map[string]int32) (*cupidv1.Party, error) {
	attrs, err := Attributes(attributes)
	if err != nil {
		return nil, err
	}
	return party(p.c.Parties.SetMember(ctx, connect.NewRequest(&cupidv1.SetMemberRequest{PartyId: p.id, Player: p.player, Attributes: attrs, Latencies: latencies})))
}

// Queue is the leader's: one ticket naming every member is made in queue.
func (p *Party) Queue(ctx context.Context, queue string) (*cupidv1.Party, error) {
	return party(p.c.Parties.Queue(ctx, connect.NewRequest(&cupidv1.QueuePartyRequest{PartyId: p.id, Player: p.player, Queue: queue})))
}

// CancelQueue is the leader's: the party's waiting ticket is cancelled.
func (p *Party) CancelQueue(ctx context.Context) (*cupidv1.Party, error) {
	return party(p.c.Parties.CancelQueue(ctx, connect.NewRequest(&cupidv1.PartyMemberRequest{PartyId: p.id, Player: p.player})))
}

// Watch hands fn the party's events after afterSeq, reconnecting after a
// dropped connection and resuming after the last event fn accepted, so
// every event arrives once. It returns nil when the party ends or the
// player leaves it, fn's error when fn fails, and the server's refusal.
func (p *Party) Watch(ctx context.Context, afterSeq int64, fn func(*cupidv1.PartyEvent) error) error {
	return p.c.resume(ctx, "party "+p.id, func(ctx context.Context) (bool, error) {
		stream, err := p.c.Parties.WatchParty(ctx, connect.NewRequest(&cupidv1.WatchPartyRequest{PartyId: p.id, Player: p.player, AfterSeq: afterSeq}))
		if err != nil {
			return false, err
		}
		defer stream.Close()
		return drain(stream.Receive, stream.Msg, stream.Err, &afterSeq, fn)
	})
}
