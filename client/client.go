// Package client is the Go client a game backend imports to queue players
// on a Cupid server: create and cancel tickets one at a time or in bulk,
// read and list them, watch a ticket until it ends, and — for the backend
// that allocates game servers — follow a queue's matches and assign each a
// server; it also covers the rest of the API: rulesets (check, get, put),
// ratings, speed-dating events (Event) and async opponents (Finder), with
// attributes as plain Go values (Attributes, NewPlayer, Model). Watches
// resume by sequence number after a dropped connection, so that no event
// is missed or seen twice.
//
// The generated Connect clients (package cupidv1connect) stay available
// as fields for anything this package does not wrap.
package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"connectrpc.com/connect"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
)

// Client talks to one Cupid server. It is safe for concurrent use.
type Client struct {
	// Tickets is the generated client of the ticket service, with the
	// credentials of New's options.
	Tickets cupidv1connect.TicketServiceClient
	// Matches is the generated client of the match service.
	Matches cupidv1connect.MatchServiceClient
	// Ratings is the generated client of the rating service (ratings.go).
	Ratings cupidv1connect.RatingServiceClient
	// Encounters is the generated client of the encounter service
	// (encounters.go).
	Encounters cupidv1connect.EncounterServiceClient
	// Rulesets is the generated client of the ruleset service
	// (rulesets.go).
	Rulesets cupidv1connect.RulesetServiceClient
	// Pairing is the generated client of the speed-dating service
	// (pairing.go: CreateEvent, ListEvents and Event's calls).
	Pairing cupidv1connect.PairingServiceClient
	// Opponents is the generated client of the async opponent service
	// (opponents.go: Finder's calls).
	Opponents cupidv1connect.OpponentServiceClient
	// Lobbies is the generated client of the lobby service (lobbies.go:
	// CreateLobby, ListLobbies and Lobby's calls).
	Lobbies cupidv1connect.LobbyServiceClient
	// Parties is the generated client of the party service (parties.go:
	// CreateParty, JoinByCode and Party's calls).
	Parties cupidv1connect.PartyServiceClient
	// Rollouts is the generated client of the roll-out service (shadows
	// and canaries, rollouts.go).
	Rollouts cupidv1connect.RolloutServiceClient
	retry    Backoff
}

// Option configures New.
type Option func(*settings)

type settings struct {
	http        connect.HTTPClient
	credentials string
	grpc        bool
	retry       Backoff
}

// WithServerKey sends a server key (a backend acting for any player) with
// every call.
func WithServerKey(key string) Option {
	return func(s *settings) { s.credentials = key }
}

// WithPlayerToken sends a signed player token (a game client acting as
// itself) with every call.
func WithPlayerToken(token string) Option {
	return func(s *settings) { s.credentials = token }
}

// WithHTTPClient replaces the HTTP client (for TLS settings, proxies or
// timeouts). The default speaks HTTP/1.1 and, over TLS, HTTP/2.
func WithHTTPClient(c connect.HTTPClient) Option {
	return func(s *settings) { s.http = c }
}

// WithGRPC speaks gRPC instead of the Connect protocol. A server without
// TLS needs an HTTP client that speaks HTTP/2 in clear text (see
// H2CClient).
func WithGRPC() Option {
	return func(s *settings) { s.grpc = true }
}

// WithBackoff sets how Watch waits between reconnections.
func WithBackoff(b Backoff) Option {
	return func(s *settings) { s.retry = b }
}

// Backoff is the wait between reconnections: First, doubling up to Max.
// Attempts bounds the reconnections in a row that fail before any event
// arrives (0: until the context ends).
type Backoff struct {
	First, Max time.Duration
	Attempts   int
}

// DefaultBackoff waits 100 ms, doubling up to 5 s, without giving up.
var DefaultBackoff = Backoff{First: 100 * time.Millisecond, Max: 5 * time.Second}

// New returns a client of the server at baseURL ("http://127.0.0.1:7070").
func New(baseURL string, opts ...Option) *Client {
	s := settings{http: http.DefaultClient, retry: DefaultBackoff}
	for _, o := range opts {
		o(&s)
	}
	var copts []connect.ClientOption
	if s.grpc {
		copts = append(copts, connect.WithGRPC())
	}
	if s.credentials != "" {
		copts = append(copts, connect.WithInterceptors(bearer(s.credentials)))
	}
	base := strings.TrimRight(baseURL, "/")
	return &Client{
		Tickets:   cupidv1connect.NewTicketServiceClient(s.http, base, copts...),
		Matches:   cupidv1connect.NewMatchServiceClient(s.http, base, copts...),
		Ratings:   cupidv1connect.NewRatingServiceClient(s.http, base, copts...),
		Rulesets:  cupidv1connect.NewRulesetServiceClient(s.http, base, copts...),
		Pairing:   cupidv1connect.NewPairingServiceClient(s.http, base, copts...),
		Opponents: cupidv1connect.NewOpponentServiceClient(s.http, base, copts...),
		Lobbies:   cupidv1connect.NewLobbyServiceClient(s.http, base, copts...),
		Parties:   cupidv1connect.NewPartyServiceClient(s.http, base, copts...),
		Rollouts:  cupidv1connect.NewRolloutServiceClient(s.http, base, copts...),
		retry:     s.retry,

		Encounters: cupidv1connect.NewEncounterServiceClient(s.http, base, copts...),
	}
}

// H2CClient is an HTTP client that speaks HTTP/2 without TLS, which gRPC
// needs against a server on a plain port.
func H2CClient() *http.Client {
	tr := &http.Transport{DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext}
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	tr.Protocols = p
	return &http.Client{Transport: tr}
}

// bearer adds the Authorization header to unary and streaming calls.
type bearer string

func (b bearer) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		req.Header().Set("Authorization", "Bearer "+string(b))
		return next(ctx, req)
	}
}

func (b bearer) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return func(ctx context.Context, spec connect.Spec) connect.StreamingClientConn {
		conn := next(ctx, spec)
		conn.RequestHeader().Set("Authorization", "Bearer "+string(b))
		return conn
	}
}

func (b bearer) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return next
}

// CreateTicket creates one ticket. Set RequestId so that retrying after a
// lost answer returns the same ticket instead of refusing a second one.
func (c *Client) CreateTicket(ctx context.Context, req *cupidv1.CreateTicketRequest) (*cupidv1.Ticket, error) {
	res, err := c.Tickets.CreateTicket(ctx, connect.NewRequest(req))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetTicket(), nil
}

// Result is what became of one ticket of a bulk call: the ticket, or Err
// (a *connect.Error with the server's code and message; Field names the
// request field at fault, as "tickets[3].players[0].id").
type Result struct {
	Ticket  *cupidv1.Ticket
	Existed bool
	Err     error
	Field   string
}

// CreateTickets creates up to 1,000 tickets in one call and one durable
// write. The results are in request order; an error is returned only when
// the whole call failed.
func (c *Client) CreateTickets(ctx context.Context, reqs []*cupidv1.CreateTicketRequest) ([]Result, error) {
	res, err := c.Tickets.CreateTickets(ctx, connect.NewRequest(&cupidv1.CreateTicketsRequest{Tickets: reqs}))
	if err != nil {
		return nil, err
	}
	out := make([]Result, len(res.Msg.GetResults()))
	for i, r := range res.Msg.GetResults() {
		out[i] = Result{Ticket: r.GetTicket(), Existed: r.GetExisted(), Err: resultError(r.GetErrorCode(), r.GetError()), Field: r.GetErrorField()}
	}
	return out, nil
}

// CancelTicket cancels a waiting ticket.
func (c *Client) CancelTicket(ctx context.Context, id string) (*cupidv1.Ticket, error) {
	res, err := c.Tickets.CancelTicket(ctx, connect.NewRequest(&cupidv1.CancelTicketRequest{Id: id}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetTicket(), nil
}

// CancelTickets cancels up to 1,000 tickets in one call, with a result per
// id in request order.
func (c *Client) CancelTickets(ctx context.Context, ids []string) ([]Result, error) {
	res, err := c.Tickets.CancelTickets(ctx, connect.NewRequest(&cupidv1.CancelTicketsRequest{Ids: ids}))
	if err != nil {
		return nil, err
	}
	out := make([]Result, len(res.Msg.GetResults()))
	for i, r := range res.Msg.GetResults() {
		out[i] = Result{Ticket: r.GetTicket(), Err: resultError(r.GetErrorCode(), r.GetError()), Field: r.GetErrorField()}
	}
	return out, nil
}

// resultError turns a bulk result's code and message into a
// *connect.Error; nil when the code is empty.
func resultError(code, msg string) error {
	if code == "" {
		return nil
	}
	var c connect.Code
	if err := c.UnmarshalText([]byte(code)); err != nil {
		c = connect.CodeUnknown
	}
	return connect.NewError(c, errors.New(msg))
}

// Watch calls fn with each event of a ticket after afterSeq (0: from its
// creation), in order, until the server ends the stream after the ticket's
// final event (matched, cancelled, expired); then it returns nil. A
// dropped connection or an unavailable server is retried with the
// client's backoff, resuming after the last event fn saw, so fn sees every
// event once. It returns fn's error, the context's, or the server's when
// it refuses the watch (an unknown ticket, a caller without permission).
func (c *Client) Watch(ctx context.Context, id string, afterSeq int64, fn func(*cupidv1.TicketEvent) error) error {
	return c.watchTicket(ctx, id, afterSeq, false, fn)
}

// WatchUntilAssigned is Watch for a player waiting for his server: past
// "matched" it goes on until the match is assigned (the "assigned" event
// carries the server's address and connection data), or the ticket is
// back in the queue and ends later ("requeued" when its match was
// released unassigned).
func (c *Client) WatchUntilAssigned(ctx context.Context, id string, afterSeq int64, fn func(*cupidv1.TicketEvent) error) error {
	return c.watchTicket(ctx, id, afterSeq, true, fn)
}

func (c *Client) watchTicket(ctx context.Context, id string, afterSeq int64, assigned bool, fn func(*cupidv1.TicketEvent) error) error {
	return c.resume(ctx, "ticket "+id, func(ctx context.Context) (bool, error) {
		stream, err := c.Tickets.WatchTicket(ctx, connect.NewRequest(&cupidv1.WatchTicketRequest{Id: id, AfterSeq: afterSeq, WaitForAssignment: assigned}))
		if err != nil {
			return false, err
		}
		defer stream.Close()
		return drain(stream.Receive, stream.Msg, stream.Err, &afterSeq, fn)
	})
}

// WatchMatches calls fn with each event of a queue's match log after
// afterSeq — "formed" (a new match to allocate a server for), "assigned",
// "released" — in order, until ctx ends or fn fails. A backend keeps the
// last Seq it handled (durably, with its own state) and passes it again
// after a restart: it misses nothing and sees nothing twice. Connection
// losses are retried as Watch does.
func (c *Client) WatchMatches(ctx context.Context, queue string, afterSeq int64, fn func(*cupidv1.MatchEvent) error) error {
	return c.resume(ctx, "the matches of "+queue, func(ctx context.Context) (bool, error) {
		stream, err := c.Matches.WatchMatches(ctx, connect.NewRequest(&cupidv1.WatchMatchesRequest{Queue: queue, AfterSeq: afterSeq}))
		if err != nil {
			return false, err
		}
		defer stream.Close()
		progressed, err := drain(stream.Receive, stream.Msg, stream.Err, &afterSeq, fn)
		if err == nil {
			// The match stream has no last event: a server that ends it
			// is going away.
			err = connect.NewError(connect.CodeUnavailable, errors.New("the server ended the match stream"))
		}
		return progressed, err
	})
}

// AssignMatch tells the server which game server a match plays on; the
// players' watchers hear it. Assigning a match twice, or one released, is
// refused with failed_precondition.
func (c *Client) AssignMatch(ctx context.Context, id string, a *cupidv1.Assignment) (*cupidv1.MatchRecord, error) {
	res, err := c.Matches.AssignMatch(ctx, connect.NewRequest(&cupidv1.AssignMatchRequest{Id: id, Assignment: a}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetMatch(), nil
}

// GetMatch returns a match with its state and assignment.
func (c *Client) GetMatch(ctx context.Context, id string) (*cupidv1.MatchRecord, error) {
	res, err := c.Matches.GetMatch(ctx, connect.NewRequest(&cupidv1.GetMatchRequest{Id: id}))
	if err != nil {
		return nil, err
	}
	return res.Msg.GetMatch(), nil
}

// resume runs one stream after another until one ends cleanly, fn fails,
// the server refuses, ctx ends or the backoff's attempts run out.
func (c *Client) resume(ctx context.Context, what string, once func(context.Context) (bool, error)) error {
	wait, failures := c.retry.First, 0
	for {
		progressed, err := c.runOnce(ctx, once)
		if err == nil {
			return nil
		}
		var stop stopError
		if errors.As(err, &stop) {
			return stop.err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !retryable(err) {
			return err
		}
		if progressed {
			wait, failures = c.retry.First, 0
		}
		failures++
		if c.retry.Attempts > 0 && failures > c.retry.Attempts {
			return fmt.Errorf("watching %s: gave up after %d reconnections: %w", what, c.retry.Attempts, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, c.retry.Max)
	}
}

func (c *Client) runOnce(ctx context.Context, once func(context.Context) (bool, error)) (bool, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	return once(ctx)
}

// stopError carries fn's own error out of a stream, never retried.
type stopError struct{ err error }

func (e stopError) Error() string { return e.err.Error() }

// sequenced is an event with a sequence number.
type sequenced interface{ GetSeq() int64 }

// drain hands a stream's events to fn, skipping any at or below *afterSeq
// and advancing it past each event fn accepted; it reports whether any
// arrived. A stream the server ended cleanly gives nil.
func drain[E sequenced](receive func() bool, msg func() E, streamErr func() error, afterSeq *int64, fn func(E) error) (bool, error) {
	progressed := false
	for receive() {
		ev := msg()
		if ev.GetSeq() <= *afterSeq {
			continue // already seen: a server replaying more than asked
		}
		if err := fn(ev); err != nil {
			return progressed, stopError{err}
		}
		*afterSeq = ev.GetSeq()
		progressed = true
	}
	err := streamErr()
	if err == nil || errors.Is(err, io.EOF) {
		return progressed, nil
	}
	return progressed, err
}

// retryable reports whether a watch error is the connection's or the
// server's momentary state rather than a refusal.
func retryable(err error) bool {
	switch connect.CodeOf(err) {
	case connect.CodeUnavailable, connect.CodeUnknown, connect.CodeInternal, connect.CodeAborted,
		connect.CodeDeadlineExceeded, connect.CodeResourceExhausted, connect.CodeCanceled:
		return true
	}
	return false
}
