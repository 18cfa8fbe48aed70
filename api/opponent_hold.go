package api

import (
	"context"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/opponent"
)

// Reservations, shields and online flags of OpponentService: the calls
// that follow a reserving FindOpponent, and the online flag. Who may call
// them is in permissions.go: a server key with the opponents scope, or a
// player token for his own reservations (attacker_id) and, where the
// finder lets players update their models, his own online flag.

func (h *opponents) ConfirmAttack(ctx context.Context, req *connect.Request[cupidv1.ConfirmAttackRequest]) (*connect.Response[cupidv1.ConfirmAttackResponse], error) {
	r := req.Msg
	c, err := h.svc.ConfirmAttack(ctx, r.GetFinder(), r.GetReservationId(), r.GetAttackerId())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	out := &cupidv1.ConfirmAttackResponse{
		Reservation:       reservationOut(c.Reservation),
		RemovedAfterOffer: c.RemovedAfterOffer,
	}
	if !c.ShieldUntil.IsZero() {
		out.ShieldUntil = timestamppb.New(c.ShieldUntil)
	}
	return connect.NewResponse(out), nil
}

func (h *opponents) ReleaseReservation(ctx context.Context, req *connect.Request[cupidv1.ReleaseReservationRequest]) (*connect.Response[cupidv1.ReleaseReservationResponse], error) {
	r := req.Msg
	res, err := h.svc.ReleaseReservation(ctx, r.GetFinder(), r.GetReservationId(), r.GetAttackerId())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.ReleaseReservationResponse{Reservation: reservationOut(res)}), nil
}

func (h *opponents) SetPlayerOnline(ctx context.Context, req *connect.Request[cupidv1.SetPlayerOnlineRequest]) (*connect.Response[cupidv1.SetPlayerOnlineResponse], error) {
	r := req.Msg
	res, err := h.svc.SetPlayerOnline(ctx, r.GetFinder(), r.GetPlayerId(), r.GetOnline())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.SetPlayerOnlineResponse{Online: res.Online, Stored: res.Stored}), nil
}

func reservationOut(r opponent.Reservation) *cupidv1.Reservation {
	return &cupidv1.Reservation{
		Id:         r.ID,
		AttackerId: r.Attacker,
		DefenderId: r.Defender,
		ExpiresAt:  timestamppb.New(r.Expires),
	}
}
