package client

import (
	"context"
	"errors"
	"io"

	"connectrpc.com/connect"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// CreateEvent creates a speed-dating event (docs/pairing.md); give
// req.Id to choose its id, which is generated otherwise.
func (c *Client) CreateEvent(ctx context.Context, req *cupidv1.CreateEventRequest) (*cupidv1.Event, error) {
	res, err := c.Pairing.CreateEvent(ctx, connect.NewRequest(req))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetEvent(), nil
}

// ListEvents returns every event.
func (c *Client) ListEvents(ctx context.Context) ([]*cupidv1.Event, error) {
	res, err := c.Pairing.ListEvents(ctx, connect.NewRequest(&cupidv1.ListEventsRequest{}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetEvents(), nil
}

// Event is one speed-dating event's calls: the organiser's (rounds,
// settings, the met graph) and a participant's (join, the lobby, never
// lists, answers). It is a name, not a copy: every call asks the server.
type Event struct {
	c  *Client
	id string
}

// Event returns the calls of the event with this id.
func (c *Client) Event(id string) *Event { return &Event{c: c, id: id} }

// ID is the event's id.
func (e *Event) ID() string { return e.id }

// Get returns the event's state: phase, round, lobby, pairs.
func (e *Event) Get(ctx context.Context) (*cupidv1.Event, error) {
	res, err := e.c.Pairing.GetEvent(ctx, connect.NewRequest(&cupidv1.GetEventRequest{Id: e.id}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetEvent(), nil
}

// Delete removes the event and its records.
func (e *Event) Delete(ctx context.Context) error {
	_, err := e.c.Pairing.DeleteEvent(ctx, connect.NewRequest(&cupidv1.DeleteEventRequest{Id: e.id}))
	return err
}

// participant runs one of the participant calls that take
// ParticipantRequest.
func (e *Event) participant(ctx context.Context, call func(context.Context, *connect.Request[cupidv1.ParticipantRequest]) (*connect.Response[cupidv1.ParticipantResponse], error), participant, group string) (*cupidv1.ParticipantResponse, error) {
	res, err := call(ctx, connect.NewRequest(&cupidv1.ParticipantRequest{EventId: e.id, Participant: participant, Group: group}))
	if err != nil {
		return nil, err
	}
	return res.Msg, nil
}

// Join adds a participant, by a stable key, to the event; group is his
// group or side in events of those modes ("" otherwise).
func (e *Event) Join(ctx context.Context, participant, group string) (*cupidv1.ParticipantResponse, error) {
	return e.participant(ctx, e.c.Pairing.Join, participant, group)
}

// Leave removes a participant; a partner in a running round is told.
func (e *Event) Leave(ctx context.Context, participant string) (*cupidv1.ParticipantResponse, error) {
	return e.participant(ctx, e.c.Pairing.Leave, participant, "")
}

// EnterLobby makes a participant available for the next round.
func (e *Event) EnterLobby(ctx context.Context, participant string) (*cupidv1.ParticipantResponse, error) {
	return e.participant(ctx, e.c.Pairing.EnterLobby, participant, "")
}

// LeaveLobby takes a break: no pairing until the participant is back.
func (e *Event) LeaveLobby(ctx context.Context, participant string) (*cupidv1.ParticipantResponse, error) {
	return e.participant(ctx, e.c.Pairing.LeaveLobby, participant, "")
}

// ClearRecord forgets whom the participant has met, by his own record.
func (e *Event) ClearRecord(ctx context.Context, participant string) (*cupidv1.ParticipantResponse, error) {
	return e.participant(ctx, e.c.Pairing.ClearRecord, participant, "")
}

// ExtendDate asks for more time in the participant's current date.
func (e *Event) ExtendDate(ctx context.Context, participant string) (*cupidv1.ParticipantResponse, error) {
	return e.participant(ctx, e.c.Pairing.ExtendDate, participant, "")
}

// ForgetMeeting takes other out of the participant's own record.
func (e *Event) ForgetMeeting(ctx context.Context, participant, other string) (*cupidv1.ParticipantResponse, error) {
	res, err := e.c.Pairing.ForgetMeeting(ctx, connect.NewRequest(&cupidv1.PeerRequest{EventId: e.id, Participant: participant, Other: other}))
	if err != nil {
		return nil, err
	}
	return res.Msg, nil
}

// AddNever adds other to the participant's private "never pair me with"
// list and returns the list.
func (e *Event) AddNever(ctx context.Context, participant, other string) ([]string, error) {
	res, err := e.c.Pairing.AddNever(ctx, connect.NewRequest(&cupidv1.PeerRequest{EventId: e.id, Participant: participant, Other: other}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetNever(), nil
}

// RemoveNever takes other off the participant's never list and returns
// the list.
func (e *Event) RemoveNever(ctx context.Context, participant, other string) ([]string, error) {
	res, err := e.c.Pairing.RemoveNever(ctx, connect.NewRequest(&cupidv1.PeerRequest{EventId: e.id, Participant: participant, Other: other}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetNever(), nil
}

// GetNeverList returns the participant's never list.
func (e *Event) GetNeverList(ctx context.Context, participant string) ([]string, error) {
	res, err := e.c.Pairing.GetNeverList(ctx, connect.NewRequest(&cupidv1.ParticipantRequest{EventId: e.id, Participant: participant}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetNever(), nil
}

// Answer records the participant's private "would meet again" answer
// about other, someone he had a date with.
func (e *Event) Answer(ctx context.Context, participant, other string, yes bool) error {
	_, err := e.c.Pairing.Answer(ctx, connect.NewRequest(&cupidv1.AnswerRequest{EventId: e.id, Participant: participant, Other: other, Yes: yes}))
	return err
}

// GetMatches returns the participant's mutual yes answers, once revealed.
func (e *Event) GetMatches(ctx context.Context, participant string) ([]string, error) {
	res, err := e.c.Pairing.GetMatches(ctx, connect.NewRequest(&cupidv1.ParticipantRequest{EventId: e.id, Participant: participant}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetMatches(), nil
}

// RecordMeeting marks a and b as having met, in both records.
func (e *Event) RecordMeeting(ctx context.Context, a, b string) (*cupidv1.Event, error) {
	res, err := e.c.Pairing.RecordMeeting(ctx, connect.NewRequest(&cupidv1.RecordMeetingRequest{EventId: e.id, A: a, B: b}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetEvent(), nil
}

// ImportHistory adds directed record entries ("from has met to") kept
// elsewhere.
func (e *Event) ImportHistory(ctx context.Context, entries []*cupidv1.MetEdge) (*cupidv1.Event, error) {
	res, err := e.c.Pairing.ImportHistory(ctx, connect.NewRequest(&cupidv1.ImportHistoryRequest{EventId: e.id, Entries: entries}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetEvent(), nil
}

// UpdateSettings changes the event's settings (the mode is fixed at
// creation).
func (e *Event) UpdateSettings(ctx context.Context, settings *cupidv1.EventSettings) (*cupidv1.Event, error) {
	res, err := e.c.Pairing.UpdateSettings(ctx, connect.NewRequest(&cupidv1.UpdateSettingsRequest{EventId: e.id, Settings: settings}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetEvent(), nil
}

// control runs one of the organiser's calls that take EventRequest.
func (e *Event) control(ctx context.Context, call func(context.Context, *connect.Request[cupidv1.EventRequest]) (*connect.Response[cupidv1.EventResponse], error)) (*cupidv1.Event, error) {
	res, err := call(ctx, connect.NewRequest(&cupidv1.EventRequest{EventId: e.id}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetEvent(), nil
}

// StartRound starts a round now, pairing the lobby.
func (e *Event) StartRound(ctx context.Context) (*cupidv1.Event, error) {
	return e.control(ctx, e.c.Pairing.StartRound)
}

// EndRound ends the running round.
func (e *Event) EndRound(ctx context.Context) (*cupidv1.Event, error) {
	return e.control(ctx, e.c.Pairing.EndRound)
}

// PauseEvent stops the clock: no countdown or round starts until resumed.
func (e *Event) PauseEvent(ctx context.Context) (*cupidv1.Event, error) {
	return e.control(ctx, e.c.Pairing.PauseEvent)
}

// ResumeEvent starts the clock again.
func (e *Event) ResumeEvent(ctx context.Context) (*cupidv1.Event, error) {
	return e.control(ctx, e.c.Pairing.ResumeEvent)
}

// RevealMatches tells every participant his mutual yes answers.
func (e *Event) RevealMatches(ctx context.Context) (*cupidv1.Event, error) {
	return e.control(ctx, e.c.Pairing.RevealMatches)
}

// MetGraph returns who has met whom, by each side's record.
func (e *Event) MetGraph(ctx context.Context) (*cupidv1.MetGraphResponse, error) {
	res, err := e.c.Pairing.MetGraph(ctx, connect.NewRequest(&cupidv1.MetGraphRequest{EventId: e.id}))
	if err != nil {
		return nil, err
	}
	return res.Msg, nil
}

// GetRounds returns the recorded rounds after afterSeq, at most limit,
// and whether there are more.
func (e *Event) GetRounds(ctx context.Context, afterSeq, limit int) ([]*cupidv1.RoundRecord, bool, error) {
	res, err := e.c.Pairing.GetRounds(ctx, connect.NewRequest(&cupidv1.GetRoundsRequest{EventId: e.id, AfterSeq: int32(afterSeq), Limit: int32(limit)}))
	if err != nil {
		return nil, false, err
	}
	return res.Msg.GetRounds(), res.Msg.GetMore(), nil
}

// Watch calls fn with the event's notifications — a participant's own
// when participant is given, the organiser's (every notification, round
// records included) when it is empty — until ctx ends, fn fails or the
// server ends the stream (the event deleted, the server going away: the
// error says which). It does not reconnect: the organiser passes the last
// round record's seq as afterSeq to a new Watch to miss no round (-1 for
// none replayed); a participant's watch has no replay and takes -1.
func (e *Event) Watch(ctx context.Context, participant string, afterSeq int, fn func(*cupidv1.PairingNotification) error) error {
	req := &cupidv1.WatchEventRequest{EventId: e.id, Participant: participant}
	if afterSeq >= 0 {
		s := int32(afterSeq)
		req.AfterSeq = &s
	}
	stream, err := e.c.Pairing.WatchEvent(ctx, connect.NewRequest(req))
	if err != nil {
		return err
	}
	defer stream.Close()
	for stream.Receive() {
		if err := fn(stream.Msg()); err != nil {
			return err
		}
	}
	if err := stream.Err(); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}
