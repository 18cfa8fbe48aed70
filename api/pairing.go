package api

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	cupid "github.com/cupid-match/cupid"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
	"github.com/cupid-match/cupid/pairing"
	"github.com/cupid-match/cupid/service/pairingsvc"
)

// registerPairing mounts cupid.v1.PairingService and the WebSocket
// GET /v1/events/{id}/ws?participant=KEY, which streams the same
// notifications as WatchEvent as JSON text messages.
func registerPairing(mux *http.ServeMux, svc *pairingsvc.Service, log *slog.Logger, opts []connect.HandlerOption, allowed origins) {
	h := &pairingHandler{svc: svc, log: log, origins: allowed}
	mux.Handle(cupidv1connect.NewPairingServiceHandler(h, opts...))
	mux.HandleFunc("GET /v1/events/{id}/ws", h.watchSocket)
}

// pairingHandler serves cupid.v1.PairingService over the pairing service.
type pairingHandler struct {
	svc     *pairingsvc.Service
	log     *slog.Logger
	origins origins
}

var _ cupidv1connect.PairingServiceHandler = (*pairingHandler)(nil)

func (h *pairingHandler) CreateEvent(ctx context.Context, req *connect.Request[cupidv1.CreateEventRequest]) (*connect.Response[cupidv1.CreateEventResponse], error) {
	cfg, err := settingsIn(req.Msg.GetSettings())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	v, err := h.svc.CreateEvent(ctx, pairingsvc.NewEvent{ID: req.Msg.GetId(), Name: req.Msg.GetName(), Config: cfg, Seed: req.Msg.GetSeed()})
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.CreateEventResponse{Event: pairingEventOut(v, true)}), nil
}

func (h *pairingHandler) GetEvent(ctx context.Context, req *connect.Request[cupidv1.GetEventRequest]) (*connect.Response[cupidv1.GetEventResponse], error) {
	v, err := h.svc.GetEvent(ctx, req.Msg.GetId())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.GetEventResponse{Event: pairingEventOut(v, true)}), nil
}

func (h *pairingHandler) ListEvents(ctx context.Context, req *connect.Request[cupidv1.ListEventsRequest]) (*connect.Response[cupidv1.ListEventsResponse], error) {
	vs, err := h.svc.ListEvents(ctx)
	if err != nil {
		return nil, connectError(h.log, err)
	}
	out := &cupidv1.ListEventsResponse{Events: make([]*cupidv1.Event, len(vs))}
	for i, v := range vs {
		out.Events[i] = pairingEventOut(v, false)
	}
	return connect.NewResponse(out), nil
}

func (h *pairingHandler) DeleteEvent(ctx context.Context, req *connect.Request[cupidv1.DeleteEventRequest]) (*connect.Response[cupidv1.DeleteEventResponse], error) {
	if err := h.svc.DeleteEvent(ctx, req.Msg.GetId()); err != nil {
		return nil, connectError(h.log, err)
	}
	return connect.NewResponse(&cupidv1.DeleteEventResponse{}), nil
}

// participantCall is the shape of the service's participant calls.
type participantCall func(ctx context.Context, eventID, participant string) (*pairingsvc.EventView, pairing.Status, error)

func (h *pairingHandler) participant(ctx context.Context, req *connect.Request[cupidv1.ParticipantRequest], call participantCall) (*connect.Response[cupidv1.ParticipantResponse], error) {
	if req.Msg.GetGroup() != "" {
		return nil, connectError(h.log, cupid.Invalid("group", "is given only on Join"))
	}
	v, st, err := call(ctx, req.Msg.GetEventId(), req.Msg.GetParticipant())
	return h.participantResponse(v, st, err)
}

func (h *pairingHandler) Join(ctx context.Context, req *connect.Request[cupidv1.ParticipantRequest]) (*connect.Response[cupidv1.ParticipantResponse], error) {
	m := req.Msg
	return h.participantResponse(h.svc.JoinGroup(ctx, m.GetEventId(), m.GetParticipant(), m.GetGroup()))
}

func (h *pairingHandler) Leave(ctx context.Context, req *connect.Request[cupidv1.ParticipantRequest]) (*connect.Response[cupidv1.ParticipantResponse], error) {
	return h.participant(ctx, req, h.svc.Leave)
}

func (h *pairingHandler) EnterLobby(ctx context.Context, req *connect.Request[cupidv1.ParticipantRequest]) (*connect.Response[cupidv1.ParticipantResponse], error) {
	return h.participant(ctx, req, h.svc.EnterLobby)
}

func (h *pairingHandler) LeaveLobby(ctx context.Context, req *connect.Request[cupidv1.ParticipantRequest]) (*connect.Response[cupidv1.ParticipantResponse], error) {
	return h.participant(ctx, req, h.svc.LeaveLobby)
}

func (h *pairingHandler) ClearRecord(ctx context.Context, req *connect.Request[cupidv1.ParticipantRequest]) (*connect.Response[cupidv1.ParticipantResponse], error) {
	return h.participant(ctx, req, h.svc.ClearRecord)
}

func (h *pairingHandler) MetGraph(ctx context.Context, req *connect.Request[cupidv1.MetGraphRequest]) (*connect.Response[cupidv1.MetGraphResponse], error) {
	g, err := h.svc.MetGraph(ctx, req.Msg.GetEventId())
	if err != nil {
		return nil, connectError(h.log, err)
	}
	out := &cupidv1.MetGraphResponse{Participants: g.Participants, Round: int32(g.Round), Edges: make([]*cupidv1.MetEdge, len(g.Edges))}
	for i, e := range g.Edges {
		out.Edges[i] = &cupidv1.MetEdge{From: e.From, To: e.To}
	}
	return connect.NewResponse(out), nil
}

func (h *pairingHandler) WatchEvent(ctx context.Context, req *connect.Request[cupidv1.WatchEventRequest], stream *connect.ServerStream[cupidv1.PairingNotification]) error {
	after := -1
	if req.Msg.AfterSeq != nil {
		after = int(req.Msg.GetAfterSeq())
		if after < 0 {
			return connectError(h.log, cupid.Invalid("after_seq", "must not be negative, got %d", after))
		}
	}
	err := h.svc.WatchAfter(ctx, req.Msg.GetEventId(), req.Msg.GetParticipant(), after, func(n pairingsvc.Notification) error {
		return stream.Send(notificationOut(n))
	})
	return connectError(h.log, err)
}

// watchSocket serves GET /v1/events/{id}/ws?participant=KEY: the
// notifications of WatchEvent as JSON text messages (the Connect JSON form
// of PairingNotification), for game clients that cannot speak gRPC. The
// first message is "watching", with the state to start from; the server
// closes the socket normally after "event_deleted". On any other close the
// client gets the event again and reconnects.
func (h *pairingHandler) watchSocket(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	participant := r.URL.Query().Get("participant")
	// Fail before the upgrade when the event or the key is bad, so the
	// client gets a plain HTTP error it can read.
	if participant != "" {
		if err := pairing.CheckKey(participant); err != nil {
			httpError(w, err)
			return
		}
	}
	after := -1
	if q := r.URL.Query().Get("after_seq"); q != "" {
		n, err := strconv.Atoi(q)
		switch {
		case err != nil || n < 0:
			httpError(w, cupid.Invalid("after_seq", "must be a whole number, 0 or more, got %q", q))
			return
		case participant != "":
			httpError(w, cupid.Invalid("after_seq", "replays the organiser's round records; a participant's watch has none"))
			return
		}
		after = n
	}
	if _, err := h.svc.GetEvent(r.Context(), id); err != nil {
		httpError(w, err)
		return
	}
	c, ctx, ok := acceptSocket(w, r, h.origins)
	if !ok {
		return
	}
	err := h.svc.WatchAfter(ctx, id, participant, after, func(n pairingsvc.Notification) error { return sendJSON(ctx, c, notificationOut(n)) })
	closeWatch(c, err, "event deleted")
}

// settingsIn turns the API's settings into an event configuration. Zero
// round, countdown and min_lobby are left zero for the service to fill with
// its defaults; everything else is checked here, naming the API's field.
func settingsIn(s *cupidv1.EventSettings) (pairing.Config, error) {
	var cfg pairing.Config
	if s == nil {
		return cfg, cupid.Invalid("settings", "required (at least settings.rooms)")
	}
	switch r := s.GetRooms(); {
	case r == 0:
		return cfg, cupid.Invalid("settings.rooms", "required: the number of private rooms, at least 1")
	case r < 1 || r > pairing.MaxRooms:
		return cfg, cupid.Invalid("settings.rooms", "must be between 1 and %d, got %d", pairing.MaxRooms, r)
	}
	cfg.Rooms = int(s.GetRooms())
	var err error
	if cfg.Round, err = durationIn("settings.round", s.GetRoundSeconds(), s.GetRoundMillis(), pairing.MaxRound); err != nil {
		return cfg, err
	}
	if cfg.Countdown, err = durationIn("settings.countdown", s.GetCountdownSeconds(), s.GetCountdownMillis(), pairing.MaxCountdown); err != nil {
		return cfg, err
	}
	switch m := s.GetMinLobby(); {
	case m == 0:
	case m < 2 || m > pairing.MaxPeople:
		return cfg, cupid.Invalid("settings.min_lobby", "must be between 2 and %d, got %d", pairing.MaxPeople, m)
	}
	cfg.MinLobby = int(s.GetMinLobby())
	return cfg, extraSettingsIn(s, &cfg)
}

// durationIn reads a duration given in seconds or in milliseconds (not
// both); zero means "the default".
func durationIn(field string, secs, millis int32, limit time.Duration) (time.Duration, error) {
	sf, mf := field+"_seconds", field+"_millis"
	switch {
	case secs < 0:
		return 0, cupid.Invalid(sf, "must not be negative, got %d", secs)
	case millis < 0:
		return 0, cupid.Invalid(mf, "must not be negative, got %d", millis)
	case secs != 0 && millis != 0:
		return 0, cupid.Invalid(mf, "give %s or %s, not both", sf, mf)
	}
	d, f := time.Duration(secs)*time.Second, sf
	if millis != 0 {
		d, f = time.Duration(millis)*time.Millisecond, mf
	}
	if d > limit {
		return 0, cupid.Invalid(f, "must be at most %v, got %v", limit, d)
	}
	return d, nil
}

// settingsOut writes durations in whole seconds when they are, and in
// milliseconds otherwise, so that the settings read back as they were
// given.
func settingsOut(c pairing.Config) *cupidv1.EventSettings {
	out := &cupidv1.EventSettings{Rooms: int32(c.Rooms), MinLobby: int32(c.MinLobby)}
	if c.Round%time.Second == 0 {
		out.RoundSeconds = int32(c.Round / time.Second)
	} else {
		out.RoundMillis = int32(c.Round / time.Millisecond)
	}
	if c.Countdown%time.Second == 0 {
		out.CountdownSeconds = int32(c.Countdown / time.Second)
	} else {
		out.CountdownMillis = int32(c.Countdown / time.Millisecond)
	}
	if c.Mode != "" {
		out.Mode = string(c.Mode)
	}
	out.Sides = c.Sides
	out.Series = c.Series
	trios := c.Trios
	out.Trios = &trios
	minDate, ext := int32(c.MinDate/time.Second), int32(c.Extension/time.Second)
	out.MinDateSeconds, out.ExtensionSeconds = &minDate, &ext
	if c.MaxDates > 0 {
		maxDates, window := int32(c.MaxDates), int32(c.DatesWindow/time.Second)
		out.MaxDates, out.DatesWindowSeconds = &maxDates, &window
	}
	if !c.RevealAt.IsZero() {
		out.RevealAt = timestamppb.New(c.RevealAt)
	}
	return out
}

// pairingEventOut converts an event; the lists of people are left out
// unless lists is set (see ParticipantResponse and ListEventsResponse).
func pairingEventOut(v *pairingsvc.EventView, lists bool) *cupidv1.Event {
	out := &cupidv1.Event{
		Id:               v.ID,
		Name:             v.Name,
		Settings:         settingsOut(v.Config),
		Phase:            string(v.Phase),
		Round:            int32(v.Round),
		ParticipantCount: int32(len(v.Participants)),
		LobbyCount:       int32(len(v.Lobby)),
		CreatedAt:        timestamppb.New(v.CreatedAt),
		NobodyCanPair:    v.Stale,
		Paused:           v.Paused,
		Revealed:         v.Revealed,
		Seq:              int32(v.Seq),
	}
	if !v.Deadline.IsZero() {
		out.Deadline = timestamppb.New(v.Deadline)
	}
	if lists {
		out.Participants = v.Participants
		out.Lobby = v.Lobby
		out.Pairs = make([]*cupidv1.RoomPair, len(v.Pairs))
		for i, p := range v.Pairs {
			out.Pairs[i] = roomPairOut(p)
		}
	}
	return out
}

// notificationOut converts a notification; zero times are left out.
func notificationOut(n pairingsvc.Notification) *cupidv1.PairingNotification {
	out := &cupidv1.PairingNotification{
		Kind:        string(n.Kind),
		Participant: n.Participant,
		Partner:     n.Partner,
		Room:        int32(n.Room),
		Round:       int32(n.Round),
		State:       string(n.State),
		Phase:       string(n.Phase),
		Third:       n.Third,
		Seq:         int32(n.Seq),
		Capped:      n.Capped,
	}
	if n.Record != nil {
		out.Record = roundOut(n.Record)
	}
	if !n.Deadline.IsZero() {
		out.Deadline = timestamppb.New(n.Deadline)
	}
	if !n.At.IsZero() {
		out.At = timestamppb.New(n.At)
	}
	return out
}
