package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"

	"connectrpc.com/connect"
	"github.com/coder/websocket"
	"google.golang.org/protobuf/types/known/timestamppb"

	cupid "github.com/cupid-match/cupid"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
	"github.com/cupid-match/cupid/service/ticketsvc/handoff"
)

// matches serves cupid.v1.MatchService: the hand-off of formed matches to
// the game's backend.
type matches struct {
	handoff  *handoff.Service
	log      *slog.Logger
	watchers *watchLimiter
}

var _ cupidv1connect.MatchServiceHandler = (*matches)(nil)

// handoffTickets is the TicketService with the watch that can wait for a
// match's assignment and carries it: WatchTicket here replaces the one of
// tickets, the rest is tickets' own.
type handoffTickets struct{ *tickets }

// WatchTicket streams a ticket's events; with wait_for_assignment it goes
// on past matched until the match is assigned.
func (h handoffTickets) WatchTicket(ctx context.Context, req *connect.Request[cupidv1.WatchTicketRequest], stream *connect.ServerStream[cupidv1.TicketEvent]) error {
	release, err := h.watchers.acquire(req.Msg.GetId())
	if err != nil {
		return connectError(h.log, err)
	}
	defer release()
	watch := h.mm.Watch
	if req.Msg.GetWaitForAssignment() {
		watch = h.mm.WatchAssignment
	}
	err = watch(ctx, req.Msg.GetId(), req.Msg.GetAfterSeq(), func(ev cupid.Event) error {
		return stream.Send(ticketEventOut(ev))
	})
	return connectError(h.log, err)
}

// ticketEventOut is eventOut with the assignment of an assigned event.
func ticketEventOut(ev cupid.Event) *cupidv1.TicketEvent {
	out := eventOut(ev)
	out.Assignment = assignmentOut(ev.Assignment)
	return out
}

func assignmentOut(a *cupid.Assignment) *cupidv1.Assignment {
	if a == nil {
		return nil
	}
	return &cupidv1.Assignment{Server: a.Server, SessionId: a.SessionID, Connection: a.Connection, AssignedAt: timestamppb.New(a.At)}
}

var matchStateOut = map[cupid.MatchState]cupidv1.MatchState{
	cupid.MatchFormed:   cupidv1.MatchState_MATCH_STATE_FORMED,
	cupid.MatchAssigned: cupidv1.MatchState_MATCH_STATE_ASSIGNED,
	cupid.MatchReleased: cupidv1.MatchState_MATCH_STATE_RELEASED,
	cupid.MatchEnded:    cupidv1.MatchState_MATCH_STATE_ENDED,
	cupid.MatchPending:  cupidv1.MatchState_MATCH_STATE_PENDING,
}

var matchStateIn = map[cupidv1.MatchState]cupid.MatchState{
	cupidv1.MatchState_MATCH_STATE_UNSPECIFIED: "",
	cupidv1.MatchState_MATCH_STATE_FORMED:      cupid.MatchFormed,
	cupidv1.MatchState_MATCH_STATE_ASSIGNED:    cupid.MatchAssigned,
	cupidv1.MatchState_MATCH_STATE_RELEASED:    cupid.MatchReleased,
	cupidv1.MatchState_MATCH_STATE_ENDED:       cupid.MatchEnded,
	cupidv1.MatchState_MATCH_STATE_PENDING:     cupid.MatchPending,
}

func matchRecordOut(r *cupid.MatchRecord) *cupidv1.MatchRecord {
	out := &cupidv1.MatchRecord{
		Match:      matchOut(r.Match),
		State:      matchStateOut[r.State],
		Assignment: assignmentOut(r.Assignment),
		UpdatedAt:  timestamppb.New(r.UpdatedAt),
		Reason:     r.Reason,
	}
	answersOut(r, out) // accept.go
	return out
}

func matchEventOut(ev cupid.MatchEvent) *cupidv1.MatchEvent {
	out := &cupidv1.MatchEvent{Seq: ev.Seq, Kind: string(ev.Kind), At: timestamppb.New(ev.At), Assignment: assignmentOut(ev.Assignment), Reason: ev.Reason,
		TicketIds: ev.TicketIDs, PlayerIds: ev.PlayerIDs}
	if ev.Match != nil {
		out.Match = matchOut(ev.Match)
	}
	return out
}

// fail answers a MatchService call's error, naming the match by the
// field every request of the service takes it in, "id" (the store names it
// "match_id").
func (h *matches) fail(err error) error {
	return connectError(h.log, renameField(err, func(field string) string {
		if field == "match_id" {
			return "id"
		}
		return field
	}))
}

// mayRead lets a player read only a match he plays in; keys (authorized
// by the interceptor) and servers without authentication read any. The
// check is here rather than in permissions.go because it needs the
// match's players, which only the service knows.
func (h *matches) mayRead(ctx context.Context, r *cupid.MatchRecord) error {
	c := CallerFrom(ctx)
	if c == nil || c.Key != nil {
		return nil
	}
	for _, t := range r.Match.Teams {
		if slices.Contains(t.PlayerIDs, c.Player) {
			return nil
		}
	}
	return denied("the token's player %s is not in match %s", c.Player, r.Match.ID)
}

func (h *matches) GetMatch(ctx context.Context, req *connect.Request[cupidv1.GetMatchRequest]) (*connect.Response[cupidv1.GetMatchResponse], error) {
	r, err := h.handoff.GetMatch(ctx, req.Msg.GetId())
	if err == nil {
		err = h.mayRead(ctx, r)
	}
	if err != nil {
		return nil, h.fail(err)
	}
	return connect.NewResponse(&cupidv1.GetMatchResponse{Match: matchRecordOut(r)}), nil
}

func (h *matches) ListMatches(ctx context.Context, req *connect.Request[cupidv1.ListMatchesRequest]) (*connect.Response[cupidv1.ListMatchesResponse], error) {
	state, ok := matchStateIn[req.Msg.GetState()]
	if !ok {
		return nil, connectError(h.log, cupid.Invalid("state", "unknown match state %d", req.Msg.GetState()))
	}
	rs, err := h.handoff.ListMatches(ctx, cupid.MatchFilter{Queue: req.Msg.GetQueue(), State: state, Limit: int(req.Msg.GetLimit())})
	if err != nil {
		return nil, connectError(h.log, err)
	}
	out := &cupidv1.ListMatchesResponse{Matches: make([]*cupidv1.MatchRecord, len(rs))}
	for i, r := range rs {
		out.Matches[i] = matchRecordOut(r)
	}
	return connect.NewResponse(out), nil
}

func (h *matches) AssignMatch(ctx context.Context, req *connect.Request[cupidv1.AssignMatchRequest]) (*connect.Response[cupidv1.AssignMatchResponse], error) {
	a := req.Msg.GetAssignment()
	if a == nil {
		return nil, connectError(h.log, cupid.Invalid("assignment", "required: at least the server players connect to"))
	}
	r, err := h.handoff.AssignMatch(ctx, req.Msg.GetId(), cupid.Assignment{Server: a.GetServer(), SessionID: a.GetSessionId(), Connection: a.GetConnection()})
	if err != nil {
		return nil, h.fail(err)
	}
	return connect.NewResponse(&cupidv1.AssignMatchResponse{Match: matchRecordOut(r)}), nil
}

func (h *matches) WatchMatches(ctx context.Context, req *connect.Request[cupidv1.WatchMatchesRequest], stream *connect.ServerStream[cupidv1.MatchEvent]) error {
	// An unknown queue is refused before the stream starts.
	if _, err := h.handoff.ListMatches(ctx, cupid.MatchFilter{Queue: req.Msg.GetQueue(), Limit: 1}); err != nil {
		return connectError(h.log, err)
	}
	release, err := acquireMatchWatch(h.watchers, req.Msg.GetQueue())
	if err != nil {
		return connectError(h.log, err)
	}
	defer release()
	// Send the headers now: a backend's call returns once the stream is
	// open, not when the first match forms, which may be much later.
	if err := stream.Send(nil); err != nil {
		return err
	}
	err = h.handoff.WatchMatches(ctx, req.Msg.GetQueue(), req.Msg.GetAfterSeq(), func(ev cupid.MatchEvent) error {
		return stream.Send(matchEventOut(ev))
	})
	return connectError(h.log, err)
}

// acquireMatchWatch counts a match watch against the server's watchers,
// and against a queue's as a ticket's are counted.
func acquireMatchWatch(w *watchLimiter, queue string) (func(), error) {
	release, err := w.acquire("queue " + queue + " matches")
	var e *cupid.Error
	if errors.As(err, &e) && e.Field == "id" {
		return nil, cupid.Errorf(cupid.CodeExhausted, "queue", "queue %s has as many match watchers open as a ticket may have, the limit", queue)
	}
	return release, err
}

// matchSocket serves GET /v1/queues/{queue}/matches/ws?after_seq=N: the
// same events as WatchMatches, as JSON text messages (the Connect JSON form
// of MatchEvent), for backends that would rather not speak gRPC. The
// stream has no end; on a close the backend reconnects with the last seq
// it handled.
func (s *server) matchSocket(w http.ResponseWriter, r *http.Request) {
	queue := r.PathValue("queue")
	after, err := afterSeqParam(r)
	if err != nil {
		httpError(w, err)
		return
	}
	// Fail before the upgrade on an unknown queue, with a plain HTTP error.
	if _, err := s.handoff.ListMatches(r.Context(), cupid.MatchFilter{Queue: queue, Limit: 1}); err != nil {
		httpError(w, err)
		return
	}
	release, err := acquireMatchWatch(s.watchers, queue)
	if err != nil {
		httpError(w, err)
		return
	}
	defer release()
	c, ctx, ok := acceptSocket(w, r, s.origins)
	if !ok {
		return
	}
	err = s.handoff.WatchMatches(ctx, queue, after, func(ev cupid.MatchEvent) error { return sendJSON(ctx, c, matchEventOut(ev)) })
	var e *cupid.Error
	if errors.As(err, &e) && e.Code == cupid.CodeOutOfRange {
		// Not "try again later": the same after_seq would be refused
		// again. The reason leads with the number, which a long message
		// cut to a close frame's size could lose.
		c.Close(StatusOutOfRange, fmt.Sprintf("out_of_range: resume after %d", e.ResumeAfter))
		return
	}
	closeWatch(c, err, "")
}

// StatusOutOfRange closes a match WebSocket whose after_seq is older than
// the match log keeps (retention removed events after it); the reason is
// "out_of_range: resume after N", N being what ResumeAfterHeader carries
// on WatchMatches. 4000 and up are the application's codes; 4400 mirrors
// the HTTP status out_of_range has elsewhere (400).
const StatusOutOfRange websocket.StatusCode = 4400
