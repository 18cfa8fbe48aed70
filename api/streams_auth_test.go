package api

import (
	"context"
	"testing"
	"time"

	"connectrpc.com/connect"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
)

// Server streams with auth and rate limits on: the one request of a
// WatchTicket or WatchEvent is authorized as a unary call's is, and a
// stream counts once against its caller's bucket as it opens.

// headerInterceptor sends a bearer credential with every call.
type headerInterceptor struct{ cred string }

func (h headerInterceptor) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		req.Header().Set("Authorization", "Bearer "+h.cred)
		return next(ctx, req)
	}
}

func (h headerInterceptor) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return func(ctx context.Context, spec connect.Spec) connect.StreamingClientConn {
		conn := next(ctx, spec)
		conn.RequestHeader().Set("Authorization", "Bearer "+h.cred)
		return conn
	}
}

func (h headerInterceptor) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return next
}

// firstOf opens a stream and returns its first message's kind, or the
// error that ended it.
func firstOf[T any, P interface {
	*T
	GetKind() string
}](s *connect.ServerStreamForClient[T], err error) (string, error) {
	if err != nil {
		return "", err
	}
	defer s.Close()
	if s.Receive() {
		return P(s.Msg()).GetKind(), nil
	}
	return "", s.Err()
}

func TestStreamsAreAuthorizedAndRateLimited(t *testing.T) {
	var e *svcEnv
	e = newSvcEnv(t, svcOptions{auth: true, options: func(o *Options) {
		o.RateLimits = RateLimits{Players: RateLimit{Rate: 1, Burst: 3}, Now: func() time.Time { return e.clock.Now() }}
	}})
	ann, bob := playerToken(t, "ann"), playerToken(t, "bob")
	annTicket := e.rpc("TicketService/CreateTicket", keyTickets, `{"queue":"squad","players":[{"id":"ann","attributes":{"mmr":1}}]}`).ok(t).str("ticket.id")
	e.rpc("PairingService/CreateEvent", keyEvents, `{"id":"fri","settings":{"rooms":1}}`).ok(t)
	ctx, cancel := context.WithTimeout(context.Background(), watchTimeout)
	defer cancel()
	tickets := func(cred string) cupidv1connect.TicketServiceClient {
		return cupidv1connect.NewTicketServiceClient(e.h2c, e.url, connect.WithGRPC(), connect.WithInterceptors(headerInterceptor{cred}))
	}
	events := func(cred string) cupidv1connect.PairingServiceClient {
		return cupidv1connect.NewPairingServiceClient(e.h2c, e.url, connect.WithGRPC(), connect.WithInterceptors(headerInterceptor{cred}))
	}
	watchTicket := func(cred, id string) (string, error) {
		return firstOf[cupidv1.TicketEvent, *cupidv1.TicketEvent](tickets(cred).WatchTicket(ctx, connect.NewRequest(&cupidv1.WatchTicketRequest{Id: id})))
	}
	watchEvent := func(cred, participant string) (string, error) {
		return firstOf[cupidv1.PairingNotification, *cupidv1.PairingNotification](events(cred).WatchEvent(ctx, connect.NewRequest(&cupidv1.WatchEventRequest{EventId: "fri", Participant: participant})))
	}
	for _, c := range []struct {
		name string
		open func() (string, error)
		kind string
		code connect.Code
	}{
		{"ann watches her ticket", func() (string, error) { return watchTicket(ann, annTicket) }, "created", 0},
		{"bob watches ann's ticket", func() (string, error) { return watchTicket(bob, annTicket) }, "", connect.CodePermissionDenied},
		{"an events key watches a ticket", func() (string, error) { return watchTicket(keyEvents, annTicket) }, "", connect.CodePermissionDenied},
		{"ann watches the event as herself", func() (string, error) { return watchEvent(ann, "ann") }, "watching", 0},
		{"ann watches the event as bob", func() (string, error) { return watchEvent(ann, "bob") }, "", connect.CodePermissionDenied},
		// Ann has asked for three streams (one refused): her bucket is
		// empty, a refused call counting as any other.
		{"ann's fourth stream", func() (string, error) { return watchTicket(ann, annTicket) }, "", connect.CodeResourceExhausted},
		{"bob watches the event as the organiser", func() (string, error) { return watchEvent(bob, "") }, "", connect.CodePermissionDenied},
		{"the organiser's stream", func() (string, error) { return watchEvent(keyEvents, "") }, "watching", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			kind, err := c.open()
			if c.code != 0 {
				if connect.CodeOf(err) != c.code {
					t.Fatalf("%v, want %s", err, c.code)
				}
				return
			}
			if err != nil || kind != c.kind {
				t.Fatalf("first message %q, %v; want %s", kind, err, c.kind)
			}
		})
	}
}
