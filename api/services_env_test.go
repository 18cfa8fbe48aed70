package api

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/opponent"
	"github.com/cupid-match/cupid/service/encountersvc"
	"github.com/cupid-match/cupid/service/lobbysvc"
	"github.com/cupid-match/cupid/service/opponentsvc"
	"github.com/cupid-match/cupid/service/pairingsvc"
	"github.com/cupid-match/cupid/service/ratingsvc"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// The tests of the pairing, opponent, rating and session procedures run
// every service the server can run, each the real one over the env's
// in-memory store, behind the real handler. With auth on, there is one
// server key per scope, so a permission test calls as each kind of caller.

// The server keys of a services env with auth on.
const (
	keyAdmin     = "cupid_sk_admin"
	keyTickets   = "cupid_sk_tickets"
	keyEvents    = "cupid_sk_events"
	keyOpponents = "cupid_sk_opponents"
)

// The finders of a services env: raid reserves offered defenders and
// buckets them by arena; open-finder lets players update their own model
// (testAuth's PlayerModelFinders).
const (
	raidFinder = "raid"
	openFinder = "open-finder"
)

// duelRating rates the duel queue's matches.
const duelRating = "duel-rating"

type svcEnv struct {
	*env
	pairing   *pairingsvc.Service
	opponents *opponentsvc.Service
	ratings   *ratingsvc.Service
	lobbies   *lobbysvc.Service
	enc       *encountersvc.Service
}

type svcOptions struct {
	// auth turns authentication on with the keys above.
	auth bool
	// queues are served besides duel and squad.
	queues []ticketsvc.Queue
	// options, when set, changes the handler's options last.
	options func(*Options)
}

func newSvcEnv(t *testing.T, so svcOptions) *svcEnv {
	t.Helper()
	s := &svcEnv{}
	log := slog.New(slog.DiscardHandler)
	store := memstore.New()
	e := newEnv(t, envOptions{store: store, queues: so.queues, options: func(o *Options) {
		ps, err := pairingsvc.New(pairingsvc.Options{Docs: store, Logger: log})
		if err != nil {
			t.Fatal(err)
		}
		os, err := opponentsvc.New(opponentsvc.Options{Docs: store, Logger: log, Finders: []opponentsvc.Finder{
			{Name: raidFinder, MemoryOnly: true, Opponent: opponent.Config{
				PlayerCacheSize: 1000, MinMMR: 0, MaxMMR: 3000, MmrBucketCount: 30,
				Strategies:      []opponent.Strategy{{Name: "arena", Kind: opponent.KindDistinct, Attribute: "arena"}},
				Attributes:      []opponent.Attribute{{Name: "arena", Type: opponent.TypeString}, {Name: "power", Type: "number"}},
				QueryAttributes: []opponent.Attribute{{Name: "arena", Type: opponent.TypeString}},
				Reservations:    opponent.Reservations{Enabled: true},
			}},
			{Name: openFinder, MemoryOnly: true, Opponent: opponent.Config{PlayerCacheSize: 100, MinMMR: 0, MaxMMR: 3000, MmrBucketCount: 3}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		rs, err := ratingsvc.New(ratingsvc.Options{Store: store, Matches: store, Logger: log, Now: o.Now,
			Ratings: []ratingsvc.Rating{{Name: duelRating, Model: ratingsvc.OpenSkillPL}},
			Queues:  []ratingsvc.QueueRating{{Queue: "duel", Rating: duelRating, Attribute: "mmr"}},
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, start := range []func(context.Context) error{ps.Start, os.Start} {
			if err := start(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		t.Cleanup(ps.Close)
		t.Cleanup(os.Close)
		ls, err := lobbysvc.New(lobbysvc.Options{Docs: store, Matches: lobbysvc.FromTickets(o.Matchmaker), Logger: log, Now: o.Now})
		if err != nil {
			t.Fatal(err)
		}
		if err := ls.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(ls.Close)
		o.Lobbies, s.lobbies = ls, ls
		es, err := encountersvc.New(encountersvc.Options{Store: store, Docs: store, Logger: log, Now: o.Now})
		if err != nil {
			t.Fatal(err)
		}
		o.Pairing, o.Opponents, o.Ratings, o.Encounters = ps, os, rs, es
		o.Parties = newParties(t, store, o)
		s.pairing, s.opponents, s.ratings, s.enc = ps, os, rs, es
		if so.auth {
			o.Auth = testAuth(t,
				ServerKey{Name: "ops", Hash: HashKey(keyAdmin), Scopes: []Scope{ScopeAdmin}},
				ServerKey{Name: "backend", Hash: HashKey(keyTickets), Scopes: []Scope{ScopeTickets}},
				ServerKey{Name: "organiser", Hash: HashKey(keyEvents), Scopes: []Scope{ScopeEvents}},
				ServerKey{Name: "raids", Hash: HashKey(keyOpponents), Scopes: []Scope{ScopeOpponents}})
		}
		if so.options != nil {
			so.options(o)
		}
	}})
	s.env = e
	return s
}

// rpc calls a procedure ("PairingService/Join") with a JSON body, as curl
// would, sending cred as the bearer credential when it is not empty.
func (e *env) rpc(proc, cred, body string) reply {
	e.t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.url+"/cupid.v1."+proc, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if cred != "" {
		req.Header.Set("Authorization", "Bearer "+cred)
	}
	return e.do(req)
}

// playerToken is a player token of player, signed with the test secret.
func playerToken(t *testing.T, player string) string {
	return sign(t, jwt.SigningMethodHS256, testSecret, claims(map[string]any{"sub": player}))
}

// num reads a number from a reply; JSON numbers decode as float64, and
// protojson writes 64-bit integers as strings.
func (r reply) num(p string) float64 {
	switch v := r.path(p).(type) {
	case float64:
		return v
	case string:
		f, _ := strconv.ParseFloat(v, 64)
		return f
	}
	return 0
}
