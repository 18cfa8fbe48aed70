package client_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/cupid-match/cupid/api"
	"github.com/cupid-match/cupid/client"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/party"
	"github.com/cupid-match/cupid/service/lobbysvc"
	"github.com/cupid-match/cupid/service/opponentsvc"
	"github.com/cupid-match/cupid/service/pairingsvc"
	"github.com/cupid-match/cupid/service/partysvc"
	"github.com/cupid-match/cupid/service/ratingsvc"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// duel matches two one-player tickets within 100 mmr.
const duel = `{
  "alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
  "matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 100, "max": 100000}]
}`

// server is a real Cupid handler over the in-memory store, served by
// httptest (HTTP/1.1 and HTTP/2 in clear text, as cmd/cupid serves it).
type server struct {
	*httptest.Server
	mu   sync.Mutex
	auth []string // Authorization headers seen
}

func startServer(t testing.TB) *server {
	t.Helper()
	s, stop, err := newServer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return s
}

// newServer starts a server; stop closes it and its service.
func newServer() (*server, func(), error) {
	store := memstore.New()
	svc, err := ticketsvc.New(ticketsvc.Options{
		Store: store, Documents: store, Logger: slog.New(slog.DiscardHandler), Seed: 1,
		Queues: []ticketsvc.Queue{{Name: "duel", TTL: time.Minute, Ruleset: []byte(duel)}, {Name: "squad", TTL: time.Minute, Ruleset: []byte(squad)},
			// ready asks players to accept each match (accept_test.go).
			{Name: "ready", TTL: time.Minute, Ruleset: []byte(duel), Acceptance: ticketsvc.Acceptance{Timeout: time.Minute}}},
	})
	if err != nil {
		return nil, nil, err
	}
	if err := svc.Start(context.Background()); err != nil {
		return nil, nil, err
	}
	// The rest of the API (whole_api_test.go): speed-dating events, an
	// opponent finder and a rating, each the real service.
	pairings, err := pairingsvc.New(pairingsvc.Options{Docs: store, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, nil, err
	}
	if err := pairings.Start(context.Background()); err != nil {
		return nil, nil, err
	}
	opponents, err := opponentsvc.New(opponentsvc.Options{Docs: store, Logger: slog.New(slog.DiscardHandler), Finders: []opponentsvc.Finder{arenaFinder()}})
	if err != nil {
		return nil, nil, err
	}
	if err := opponents.Start(context.Background()); err != nil {
		return nil, nil, err
	}
	ratings, err := ratingsvc.New(ratingsvc.Options{Store: store, Matches: store, Logger: slog.New(slog.DiscardHandler),
		Ratings: []ratingsvc.Rating{{Name: "ranked", Model: ratingsvc.OpenSkillPL}}})
	if err != nil {
		return nil, nil, err
	}
	lobbies, err := lobbysvc.New(lobbysvc.Options{Docs: store, Matches: lobbysvc.FromTickets(svc), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, nil, err
	}
	if err := lobbies.Start(context.Background()); err != nil {
		return nil, nil, err
	}
	parties, err := partysvc.New(partysvc.Options{Docs: store, Tickets: svc, Logger: slog.New(slog.DiscardHandler), Queues: map[string]party.QueueRules{"squad": {MaxParty: 2}}})
	if err != nil {
		return nil, nil, err
	}
	if err := parties.Start(context.Background()); err != nil {
		return nil, nil, err
	}
	s := &server{}
	h := api.Handler(api.Options{Matchmaker: svc, Pairing: pairings, Opponents: opponents, Ratings: ratings, Lobbies: lobbies, Parties: parties, Logger: slog.New(slog.DiscardHandler)})
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.auth = append(s.auth, r.Header.Get("Authorization"))
		s.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	p := new(http.Protocols)
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true)
	s.Config.Protocols = p
	s.Start()
	return s, func() {
		s.Close()
		parties.Close()
		svc.Close()
		pairings.Close()
		opponents.Close()
		lobbies.Close()
	}, nil
}

func solo(queue, id string, mmr float64) *cupidv1.CreateTicketRequest {
	return &cupidv1.CreateTicketRequest{Queue: queue, Players: []*cupidv1.Player{{
		Id: id, Attributes: map[string]*structpb.Value{"mmr": structpb.NewNumberValue(mmr)},
	}}}
}

func TestBulkResultsCarryCodeAndField(t *testing.T) {
	s := startServer(t)
	c := client.New(s.URL)
	ctx := context.Background()
	res, err := c.CreateTickets(ctx, []*cupidv1.CreateTicketRequest{solo("duel", "a", 0), solo("nope", "b", 0)})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Err != nil || res[0].Ticket.GetId() == "" {
		t.Fatalf("first ticket: %+v", res[0])
	}
	if connect.CodeOf(res[1].Err) != connect.CodeNotFound || res[1].Field != "tickets[1].queue" || res[1].Ticket != nil {
		t.Fatalf("ticket for an unknown queue: %+v, want not_found on tickets[1].queue", res[1])
	}
	cancelled, err := c.CancelTickets(ctx, []string{res[0].Ticket.GetId(), "nope"})
	if err != nil {
		t.Fatal(err)
	}
	if cancelled[0].Err != nil || cancelled[0].Ticket.GetState() != cupidv1.TicketState_TICKET_STATE_CANCELLED {
		t.Errorf("cancel of a waiting ticket: %+v", cancelled[0])
	}
	if connect.CodeOf(cancelled[1].Err) != connect.CodeNotFound || cancelled[1].Field != "ids[1]" {
		t.Errorf("cancel of an unknown ticket: %+v, want not_found on ids[1]", cancelled[1])
	}
	if _, err := c.CancelTicket(ctx, res[0].Ticket.GetId()); connect.CodeOf(err) != connect.CodeFailedPrecondition {
		t.Errorf("second cancel: %v, want failed_precondition", err)
	}
}

// TestWatchResumesAfterADroppedConnection: the server drops every
// connection right after the created event; the watch reconnects after
// that event and sees the match once, then returns when the server ends
// the stream.
func TestWatchResumesAfterADroppedConnection(t *testing.T) {
	for name, opts := range map[string][]client.Option{
		"connect": nil,
		"grpc":    {client.WithGRPC(), client.WithHTTPClient(client.H2CClient())},
	} {
		t.Run(name, func(t *testing.T) {
			s := startServer(t)
			c := client.New(s.URL, append(opts, client.WithBackoff(client.Backoff{First: 10 * time.Millisecond, Max: 50 * time.Millisecond}))...)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			a, err := c.CreateTicket(ctx, solo("duel", "a", 1000))
			if err != nil {
				t.Fatal(err)
			}
			// The partner comes through a client of its own: the watch's
			// connections are the ones cut.
			other := client.New(s.URL, client.WithHTTPClient(&http.Client{Transport: &http.Transport{}}))
			var kinds []string
			var seqs []int64
			err = c.Watch(ctx, a.GetId(), 0, func(ev *cupidv1.TicketEvent) error {
				kinds = append(kinds, ev.GetKind())
				seqs = append(seqs, ev.GetSeq())
				if ev.GetKind() == "created" {
					s.CloseClientConnections()
					if _, err := other.CreateTicket(ctx, solo("duel", "b", 1010)); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(kinds, []string{"created", "matched"}) || seqs[0] >= seqs[1] {
				t.Fatalf("events %v (seqs %v), want created then matched once", kinds, seqs)
			}
		})
	}
}

func TestWatchStopsOnRefusalAndOnTheCallersError(t *testing.T) {
	s := startServer(t)
	c := client.New(s.URL)
	ctx := context.Background()
	if err := c.Watch(ctx, "nope", 0, func(*cupidv1.TicketEvent) error { return nil }); connect.CodeOf(err) != connect.CodeNotFound {
		t.Errorf("watch of an unknown ticket: %v, want not_found at once", err)
	}
	a, err := c.CreateTicket(ctx, solo("duel", "a", 1000))
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("enough")
	if err := c.Watch(ctx, a.GetId(), 0, func(*cupidv1.TicketEvent) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("watch whose callback fails: %v, want the callback's error", err)
	}
}

func TestWatchGivesUpAfterItsAttempts(t *testing.T) {
	s := startServer(t)
	url := s.URL
	s.Close() // nobody answers there now
	c := client.New(url, client.WithBackoff(client.Backoff{First: time.Millisecond, Max: time.Millisecond, Attempts: 3}))
	err := c.Watch(context.Background(), "any", 0, func(*cupidv1.TicketEvent) error { return nil })
	if err == nil || connect.CodeOf(err) != connect.CodeUnavailable {
		t.Fatalf("watch of a server that is gone: %v, want unavailable after 3 attempts", err)
	}
}

func TestCredentialsGoWithEveryCall(t *testing.T) {
	s := startServer(t)
	c := client.New(s.URL, client.WithServerKey("cupid_sk_test"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	a, err := c.CreateTicket(ctx, solo("duel", "a", 0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CancelTicket(ctx, a.GetId()); err != nil {
		t.Fatal(err)
	}
	if err := c.Watch(ctx, a.GetId(), 0, func(*cupidv1.TicketEvent) error { return nil }); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.auth) != 3 {
		t.Fatalf("%d requests, want 3", len(s.auth))
	}
	for i, h := range s.auth {
		if h != "Bearer cupid_sk_test" {
			t.Errorf("request %d: Authorization %q", i, h)
		}
	}
}
