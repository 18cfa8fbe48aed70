package api

import (
	"context"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	cupid "github.com/cupid-match/cupid"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/pairing"
	"github.com/cupid-match/cupid/service/pairingsvc"
)

// This file serves the PairingService calls beyond the VRChat world's
// design: records by hand, never lists, answers, extensions, the
// organiser's controls and the round history.

// extraSettingsIn reads the settings added after the first version (mode,
// sides, trios, minimum date, extension, reveal time) into cfg. Fields left
// out leave cfg as it is, so that UpdateSettings changes only what it is
// given.
func extraSettingsIn(s *cupidv1.EventSettings, cfg *pairing.Config) error {
	if m := s.GetMode(); m != "" {
		cfg.Mode = pairing.Mode(m)
	}
	if len(s.GetSides()) > 0 {
		cfg.Sides = s.GetSides()
	}
	if s.Trios != nil {
		cfg.Trios = s.GetTrios()
	}
	if series := s.GetSeries(); series != "" {
		cfg.Series = series
	}
	if s.MinDateSeconds != nil {
		v := s.GetMinDateSeconds()
		if v < 0 || time.Duration(v)*time.Second > pairing.MaxRound {
			return cupid.Invalid("settings.min_date_seconds", "must be between 0 and %d, got %d", int(pairing.MaxRound/time.Second), v)
		}
		cfg.MinDate = time.Duration(v) * time.Second
	}
	// The exposure cap's rule and its limits are the event's
	// (pairing.Config.Validate, which names max_dates and dates_window).
	if s.MaxDates != nil {
		cfg.MaxDates = int(s.GetMaxDates())
	}
	if s.DatesWindowSeconds != nil {
		cfg.DatesWindow = time.Duration(s.GetDatesWindowSeconds()) * time.Second
	}
	if s.ExtensionSeconds != nil {
		v := s.GetExtensionSeconds()
		if v < 0 || time.Duration(v)*time.Second > pairing.MaxRound {
			return cupid.Invalid("settings.extension_seconds", "must be between 0 and %d, got %d", int(pairing.MaxRound/time.Second), v)
		}
		cfg.Extension = time.Duration(v) * time.Second
	}
	if r := s.GetRevealAt(); r != nil {
		if err := r.CheckValid(); err != nil {
			return cupid.Invalid("settings.reveal_at", "%v", err)
		}
		cfg.RevealAt = r.AsTime().UTC()
	}
	return nil
}

// updateSettingsIn lays the given settings over the event's current ones:
// what is left out (zero) stays.
func updateSettingsIn(s *cupidv1.EventSettings, cur pairing.Config) (pairing.Config, error) {
	cfg := cur
	cfg.Sides = append([]string(nil), cur.Sides...)
	if s == nil {
		return cfg, cupid.Invalid("settings", "required: the settings to change")
	}
	if r := s.GetRooms(); r != 0 {
		if r < 1 || r > pairing.MaxRooms {
			return cfg, cupid.Invalid("settings.rooms", "must be between 1 and %d, got %d", pairing.MaxRooms, r)
		}
		cfg.Rooms = int(r)
	}
	d, err := durationIn("settings.round", s.GetRoundSeconds(), s.GetRoundMillis(), pairing.MaxRound)
	if err != nil {
		return cfg, err
	}
	if d != 0 {
		cfg.Round = d
	}
	if d, err = durationIn("settings.countdown", s.GetCountdownSeconds(), s.GetCountdownMillis(), pairing.MaxCountdown); err != nil {
		return cfg, err
	}
	if d != 0 {
		cfg.Countdown = d
	}
	if m := s.GetMinLobby(); m != 0 {
		if m < 2 || m > pairing.MaxPeople {
			return cfg, cupid.Invalid("settings.min_lobby", "must be between 2 and %d, got %d", pairing.MaxPeople, m)
		}
		cfg.MinLobby = int(m)
	}
	return cfg, extraSettingsIn(s, &cfg)
}

func (h *pairingHandler) eventResponse(v *pairingsvc.EventView, err error) (*connect.Response[cupidv1.EventResponse], error) {
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.EventResponse{Event: pairingEventOut(v, false)}), nil
}

func (h *pairingHandler) RecordMeeting(ctx context.Context, req *connect.Request[cupidv1.RecordMeetingRequest]) (*connect.Response[cupidv1.EventResponse], error) {
	return h.eventResponse(h.svc.RecordMeeting(ctx, req.Msg.GetEventId(), req.Msg.GetA(), req.Msg.GetB()))
}

func (h *pairingHandler) ImportHistory(ctx context.Context, req *connect.Request[cupidv1.ImportHistoryRequest]) (*connect.Response[cupidv1.EventResponse], error) {
	in := req.Msg.GetEntries()
	if len(in) > pairing.MaxImport {
		return nil, connectError(h.log, cupid.Errorf(cupid.CodeTooLarge, "entries", "at most %d entries in one import, got %d", pairing.MaxImport, len(in)))
	}
	entries := make([]pairing.MetEdge, len(in))
	for i, e := range in {
		entries[i] = pairing.MetEdge{From: e.GetFrom(), To: e.GetTo()}
	}
	return h.eventResponse(h.svc.ImportHistory(ctx, req.Msg.GetEventId(), entries))
}

func (h *pairingHandler) ForgetMeeting(ctx context.Context, req *connect.Request[cupidv1.PeerRequest]) (*connect.Response[cupidv1.ParticipantResponse], error) {
	m := req.Msg
	return h.participantResponse(h.svc.ForgetMeeting(ctx, m.GetEventId(), m.GetParticipant(), m.GetOther()))
}

func (h *pairingHandler) ExtendDate(ctx context.Context, req *connect.Request[cupidv1.ParticipantRequest]) (*connect.Response[cupidv1.ParticipantResponse], error) {
	return h.participant(ctx, req, h.svc.Extend)
}

func (h *pairingHandler) never(ctx context.Context, m *cupidv1.PeerRequest, add bool) (*connect.Response[cupidv1.NeverListResponse], error) {
	list, err := h.svc.SetNever(ctx, m.GetEventId(), m.GetParticipant(), m.GetOther(), add)
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.NeverListResponse{Never: list}), nil
}

func (h *pairingHandler) AddNever(ctx context.Context, req *connect.Request[cupidv1.PeerRequest]) (*connect.Response[cupidv1.NeverListResponse], error) {
	return h.never(ctx, req.Msg, true)
}

func (h *pairingHandler) RemoveNever(ctx context.Context, req *connect.Request[cupidv1.PeerRequest]) (*connect.Response[cupidv1.NeverListResponse], error) {
	return h.never(ctx, req.Msg, false)
}

func (h *pairingHandler) GetNeverList(ctx context.Context, req *connect.Request[cupidv1.ParticipantRequest]) (*connect.Response[cupidv1.NeverListResponse], error) {
	list, err := h.svc.NeverList(ctx, req.Msg.GetEventId(), req.Msg.GetParticipant())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.NeverListResponse{Never: list}), nil
}

func (h *pairingHandler) Answer(ctx context.Context, req *connect.Request[cupidv1.AnswerRequest]) (*connect.Response[cupidv1.AnswerResponse], error) {
	m := req.Msg
	if err := h.svc.Answer(ctx, m.GetEventId(), m.GetParticipant(), m.GetOther(), m.GetYes()); err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.AnswerResponse{}), nil
}

func (h *pairingHandler) GetMatches(ctx context.Context, req *connect.Request[cupidv1.ParticipantRequest]) (*connect.Response[cupidv1.MatchesResponse], error) {
	list, err := h.svc.Matches(ctx, req.Msg.GetEventId(), req.Msg.GetParticipant())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.MatchesResponse{Matches: list}), nil
}

func (h *pairingHandler) UpdateSettings(ctx context.Context, req *connect.Request[cupidv1.UpdateSettingsRequest]) (*connect.Response[cupidv1.EventResponse], error) {
	s := req.Msg.GetSettings()
	if s == nil {
		return nil, connectError(h.log, cupid.Invalid("settings", "required: the settings to change"))
	}
	return h.eventResponse(h.svc.UpdateSettings(ctx, req.Msg.GetEventId(), func(cur pairing.Config) (pairing.Config, error) {
		return updateSettingsIn(s, cur)
	}))
}

func (h *pairingHandler) StartRound(ctx context.Context, req *connect.Request[cupidv1.EventRequest]) (*connect.Response[cupidv1.EventResponse], error) {
	return h.eventResponse(h.svc.StartRound(ctx, req.Msg.GetEventId()))
}

func (h *pairingHandler) EndRound(ctx context.Context, req *connect.Request[cupidv1.EventRequest]) (*connect.Response[cupidv1.EventResponse], error) {
	return h.eventResponse(h.svc.EndRound(ctx, req.Msg.GetEventId()))
}

func (h *pairingHandler) PauseEvent(ctx context.Context, req *connect.Request[cupidv1.EventRequest]) (*connect.Response[cupidv1.EventResponse], error) {
	return h.eventResponse(h.svc.Pause(ctx, req.Msg.GetEventId()))
}

func (h *pairingHandler) ResumeEvent(ctx context.Context, req *connect.Request[cupidv1.EventRequest]) (*connect.Response[cupidv1.EventResponse], error) {
	return h.eventResponse(h.svc.Resume(ctx, req.Msg.GetEventId()))
}

func (h *pairingHandler) RevealMatches(ctx context.Context, req *connect.Request[cupidv1.EventRequest]) (*connect.Response[cupidv1.EventResponse], error) {
	return h.eventResponse(h.svc.Reveal(ctx, req.Msg.GetEventId()))
}

func (h *pairingHandler) GetRounds(ctx context.Context, req *connect.Request[cupidv1.GetRoundsRequest]) (*connect.Response[cupidv1.GetRoundsResponse], error) {
	rounds, more, err := h.svc.History(ctx, req.Msg.GetEventId(), int(req.Msg.GetAfterSeq()), int(req.Msg.GetLimit()))
	if err != nil {
		return nil, connectError(h.log, err)
	}
	out := &cupidv1.GetRoundsResponse{More: more, Rounds: make([]*cupidv1.RoundRecord, len(rounds))}
	for i := range rounds {
		out.Rounds[i] = roundOut(&rounds[i])
	}
	return connect.NewResponse(out), nil
}

// roundOut converts a round record.
func roundOut(r *pairing.RoundRecord) *cupidv1.RoundRecord {
	out := &cupidv1.RoundRecord{
		Seq:    int32(r.Seq),
		Round:  int32(r.Round),
		At:     timestamppb.New(r.At),
		Lobby:  r.Lobby(),
		SatOut: r.SatOut,
		Rooms:  make([]*cupidv1.RoomPair, len(r.Rooms)),
	}
	for i, p := range r.Rooms {
		out.Rooms[i] = roomPairOut(p)
	}
	return out
}

// roomPairOut converts a room's pair or trio.
func roomPairOut(p pairing.RoomPair) *cupidv1.RoomPair {
	out := &cupidv1.RoomPair{Room: int32(p.Room), A: p.A, B: p.B, C: p.C}
	if !p.Until.IsZero() {
		out.Until = timestamppb.New(p.Until)
	}
	return out
}

// participantResponse answers a participant call made without a
// ParticipantRequest.
func (h *pairingHandler) participantResponse(v *pairingsvc.EventView, st pairing.Status, err error) (*connect.Response[cupidv1.ParticipantResponse], error) {
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(participantOut(v, st)), nil
}

// participantOut is a participant call's answer: their own state and the
// event's counts.
func participantOut(v *pairingsvc.EventView, st pairing.Status) *cupidv1.ParticipantResponse {
	return &cupidv1.ParticipantResponse{
		Event:   pairingEventOut(v, false),
		State:   string(st.State),
		Room:    int32(st.Room),
		Partner: st.Partner,
		Third:   st.Third,
		Group:   st.Group,
	}
}
