package client

import (
	"context"
	"fmt"

	"connectrpc.com/connect"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// Model is what an opponent finder knows of a player (or of an attacker
// in a query), with plain Go values: numbers, strings, booleans and lists
// of strings, as Attributes takes them. Labels pick buckets (league,
// region …); attributes are what the finder's quality expression reads
// (guild …). docs/opponents.md says more.
type Model struct {
	ID         string
	MMR        float64
	Labels     map[string]any
	Attributes map[string]any
	// ExtraMMRs are more entries of a player with several, each with the
	// same labels and attributes.
	ExtraMMRs []float64
}

// proto converts the model, refusing a value that is not an attribute
// value with an error naming it.
func (m Model) proto() (*cupidv1.PlayerModel, error) {
	labels, err := Attributes(m.Labels)
	if err != nil {
		return nil, fmt.Errorf("labels: %w", err)
	}
	attrs, err := Attributes(m.Attributes)
	if err != nil {
		return nil, fmt.Errorf("attributes: %w", err)
	}
	return &cupidv1.PlayerModel{Id: m.ID, Mmr: m.MMR, Labels: labels, Attributes: attrs, ExtraMmrs: m.ExtraMMRs}, nil
}

// ModelOf converts a model the server returned to plain Go values.
func ModelOf(m *cupidv1.PlayerModel) Model {
	if m == nil {
		return Model{}
	}
	return Model{ID: m.GetId(), MMR: m.GetMmr(), Labels: Values(m.GetLabels()), Attributes: Values(m.GetAttributes()), ExtraMMRs: m.GetExtraMmrs()}
}

// Finder is one async opponent finder's calls. It is a name, not a copy:
// every call asks the server.
type Finder struct {
	c    *Client
	name string
}

// Finder returns the calls of the finder with this name (the
// configuration's opponents[].name).
func (c *Client) Finder(name string) *Finder { return &Finder{c: c, name: name} }

// UpdatePlayer adds or replaces a player's model in the finder's cache and
// player table. The answer says what happened (added, updated, ignored,
// removed).
func (f *Finder) UpdatePlayer(ctx context.Context, m Model) (*cupidv1.UpdatePlayerResponse, error) {
	pm, err := m.proto()
	if err != nil {
		return nil, fmt.Errorf("player %s: %w", m.ID, err)
	}
	res, err := f.c.Opponents.UpdatePlayer(ctx, connect.NewRequest(&cupidv1.UpdatePlayerRequest{Finder: f.name, PlayerId: m.ID, Model: pm}))
	if err != nil {
		return nil, err
	}
	return res.Msg, nil
}

// RemovePlayer drops every entry of a player from the cache and the
// player table, and returns how many entries left the cache.
func (f *Finder) RemovePlayer(ctx context.Context, playerID string) (int, error) {
	res, err := f.c.Opponents.RemovePlayer(ctx, connect.NewRequest(&cupidv1.RemovePlayerRequest{Finder: f.name, PlayerId: playerID}))
	if err != nil {
		return 0, err
	}
	return int(res.Msg.GetRemoved()), nil
}

// FindOptions refine FindOpponent.
type FindOptions struct {
	// Retries widens the MMR range, once per retry.
	Retries int
	// Exclude are players not to offer (recent opponents …).
	Exclude []string
	// ReturnModel asks for the chosen defender's model.
	ReturnModel bool
	// Reserve holds the defender for the attacker until ConfirmAttack or
	// ReleaseReservation, or the finder's hold passes.
	Reserve bool
}

// FindOpponent returns the best defender for the attacker. Result says
// whether one was found (OPPONENT_RESULT_SUCCESS), none
// (OPPONENT_RESULT_NONE_FOUND) or a fake one; ModelOf reads the model
// when asked for.
func (f *Finder) FindOpponent(ctx context.Context, attacker Model, o FindOptions) (*cupidv1.FindOpponentResponse, error) {
	pm, err := attacker.proto()
	if err != nil {
		return nil, fmt.Errorf("attacker %s: %w", attacker.ID, err)
	}
	res, err := f.c.Opponents.FindOpponent(ctx, connect.NewRequest(&cupidv1.FindOpponentRequest{
		Finder: f.name, Attacker: pm, Retries: int32(o.Retries), ExcludedIds: o.Exclude, ReturnModel: o.ReturnModel, Reserve: o.Reserve,
	}))
	if err != nil {
		return nil, err
	}
	return res.Msg, nil
}

// ConfirmAttack records that the attack of a reservation happened: the
// hold ends and the defender's shield starts. attackerID may be empty
// with a server key; a player token must give its own.
func (f *Finder) ConfirmAttack(ctx context.Context, reservationID, attackerID string) (*cupidv1.ConfirmAttackResponse, error) {
	res, err := f.c.Opponents.ConfirmAttack(ctx, connect.NewRequest(&cupidv1.ConfirmAttackRequest{Finder: f.name, ReservationId: reservationID, AttackerId: attackerID}))
	if err != nil {
		return nil, err
	}
	return res.Msg, nil
}

// ReleaseReservation ends a reservation without an attack: the defender
// may be offered again at once.
func (f *Finder) ReleaseReservation(ctx context.Context, reservationID, attackerID string) (*cupidv1.Reservation, error) {
	res, err := f.c.Opponents.ReleaseReservation(ctx, connect.NewRequest(&cupidv1.ReleaseReservationRequest{Finder: f.name, ReservationId: reservationID, AttackerId: attackerID}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetReservation(), nil
}

// SetPlayerOnline sets or clears a player's online flag; while it is set
// he is never offered as a defender.
func (f *Finder) SetPlayerOnline(ctx context.Context, playerID string, online bool) (*cupidv1.SetPlayerOnlineResponse, error) {
	res, err := f.c.Opponents.SetPlayerOnline(ctx, connect.NewRequest(&cupidv1.SetPlayerOnlineRequest{Finder: f.name, PlayerId: playerID, Online: online}))
	if err != nil {
		return nil, err
	}
	return res.Msg, nil
}

// FinderStats describes the finder's cache; withBuckets lists every
// bucket's fill too.
func (f *Finder) FinderStats(ctx context.Context, withBuckets bool) (*cupidv1.FinderStatsResponse, error) {
	res, err := f.c.Opponents.FinderStats(ctx, connect.NewRequest(&cupidv1.FinderStatsRequest{Finder: f.name, IncludeBuckets: withBuckets}))
	if err != nil {
		return nil, err
	}
	return res.Msg, nil
}

// Rebalance resizes the buckets to the players seen so far.
func (f *Finder) Rebalance(ctx context.Context) (*cupidv1.RebalanceResponse, error) {
	res, err := f.c.Opponents.Rebalance(ctx, connect.NewRequest(&cupidv1.RebalanceRequest{Finder: f.name}))
	if err != nil {
		return nil, err
	}
	return res.Msg, nil
}
