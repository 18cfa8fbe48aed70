package dashboard

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/opponent"
	"github.com/cupid-match/cupid/pairing"
	"github.com/cupid-match/cupid/service/pairingsvc"
)

// heartbeat keeps an idle stream's connection open through proxies.
const heartbeat = 15 * time.Second

// maxListedEvents bounds the events a snapshot lists.
const maxListedEvents = 200

// stream serves GET /dashboard/api/stream?page=…: a server-sent event
// stream of the page's snapshots, each a "data:" line of JSON, sent when
// it changed and at most once per interval. A snapshot that cannot be made
// (the ticket or event asked for does not exist) is sent as an "error"
// event, and the stream goes on.
func (s *server) stream(w http.ResponseWriter, r *http.Request) {
	build, err := s.snapshotter(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if n := s.streams.Add(1); n > int64(s.o.MaxStreams) {
		s.streams.Add(-1)
		s.fail(w, r, cupid.Errorf(cupid.CodeExhausted, "", "the dashboard has %d live streams open, its limit; close a page or try again later", s.o.MaxStreams))
		return
	}
	defer s.streams.Add(-1)
	rc := http.NewResponseController(w)
	// The stream lives as long as it is watched: no write deadline.
	_ = rc.SetWriteDeadline(time.Time{})
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	_ = rc.Flush()

	ticker := time.NewTicker(s.o.Interval)
	defer ticker.Stop()
	var last []byte
	quiet := time.Now()
	for {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		v, err := build(ctx)
		cancel()
		if r.Context().Err() != nil {
			return
		}
		var msg []byte
		if err != nil {
			e := toError(err)
			if e.Code == cupid.CodeInternal {
				s.o.Logger.Error("dashboard snapshot failed", "err", err)
			}
			out, _ := wire(e)
			b, _ := json.Marshal(out)
			msg = append(append([]byte("event: error\ndata: "), b...), "\n\n"...)
		} else {
			b, err := json.Marshal(v)
			if err != nil {
				s.o.Logger.Error("dashboard snapshot did not encode", "err", err)
				return
			}
			msg = append(append([]byte("data: "), b...), "\n\n"...)
		}
		switch {
		case !bytes.Equal(msg, last):
			last = msg
		case time.Since(quiet) >= heartbeat:
			msg = []byte(": still here\n\n")
		default:
			msg = nil
		}
		if msg != nil {
			_ = rc.SetWriteDeadline(time.Now().Add(10 * time.Second))
			if _, err := w.Write(msg); err != nil {
				return
			}
			if rc.Flush() != nil {
				return
			}
			_ = rc.SetWriteDeadline(time.Time{})
			quiet = time.Now()
		}
		select {
		case <-r.Context().Done():
			return
		case <-ticker.C:
		}
	}
}

// snapshotter checks a stream's parameters and returns what builds its
// snapshots.
func (s *server) snapshotter(r *http.Request) (func(context.Context) (any, error), error) {
	q := r.URL.Query()
	switch page := q.Get("page"); page {
	case "queues":
		return func(ctx context.Context) (any, error) {
			qs, err := s.o.Tickets.Statistics().QueueStatistics(ctx, "")
			if err != nil {
				return nil, err
			}
			recent, err := s.o.Tickets.Statistics().RecentMatches("", "", 10)
			return map[string]any{"queues": qs, "recent": recent}, err
		}, nil
	case "matches":
		queue, ticket := q.Get("queue"), q.Get("ticket")
		if len(ticket) > maxID {
			return nil, cupid.Invalid("ticket", "at most %d bytes", maxID)
		}
		if queue != "" {
			if _, _, err := s.o.Tickets.Rulesets().Ruleset(queue); err != nil {
				return nil, err
			}
		}
		return func(ctx context.Context) (any, error) {
			recent, err := s.o.Tickets.Statistics().RecentMatches(queue, "", 50)
			if err != nil {
				return nil, err
			}
			out := map[string]any{"recent": recent}
			if ticket != "" {
				v, err := s.o.Tickets.GetTicket(ctx, ticket)
				if err != nil {
					return nil, err
				}
				out["ticket"] = ticketView(v, s.o.Now())
			}
			return out, nil
		}, nil
	case "events":
		if s.o.Pairing == nil {
			return nil, cupid.NotFound("page", "this server runs no speed-dating events")
		}
		id := q.Get("event")
		if len(id) > maxID {
			return nil, cupid.Invalid("event", "at most %d bytes", maxID)
		}
		return func(ctx context.Context) (any, error) { return s.events(ctx, id) }, nil
	case "finders":
		if s.o.Opponents == nil {
			return nil, cupid.NotFound("page", "this server runs no opponent finders")
		}
		return func(context.Context) (any, error) { return s.finders() }, nil
	case "lobbies":
		if s.o.Lobbies == nil {
			return nil, cupid.NotFound("page", "this server runs no lobbies")
		}
		return func(context.Context) (any, error) { return s.lobbies(), nil }, nil
	case "parties":
		if s.o.Parties == nil {
			return nil, cupid.NotFound("page", "this server runs no parties")
		}
		return func(context.Context) (any, error) { return s.parties() }, nil
	case "":
		return nil, cupid.Invalid("page", "required: queues, matches, events, finders, lobbies or parties")
	default:
		return nil, cupid.Invalid("page", "%q is not a live page; queues, matches, events, finders, lobbies or parties", page)
	}
}

// eventStatus says in words what an event is doing: its phase, and why an
// idle event starts no round (paused, or nobody in the lobby can be paired)
// rather than always "waiting for the lobby to fill".
func eventStatus(v *pairingsvc.EventView) string {
	var s string
	switch {
	case v.Phase == pairing.PhaseIdle && v.Stale:
		s = "idle: nobody in the lobby can be paired (they have all met); waiting for someone new"
	case v.Phase == pairing.PhaseIdle:
		s = "idle: waiting for the lobby to fill"
	case v.Phase == pairing.PhaseCountdown:
		s = "counting down to the next round"
	case v.Phase == pairing.PhaseRound:
		s = "round on"
	default:
		s = string(v.Phase)
	}
	if v.Paused {
		s = "paused (every timer stopped); " + s
	}
	return s
}

// eventOut is a speed-dating event as the events page shows it.
type eventOut struct {
	ID           string             `json:"id"`
	Name         string             `json:"name"`
	Phase        pairing.Phase      `json:"phase"`
	Status       string             `json:"status"`
	Paused       bool               `json:"paused"`
	Round        int                `json:"round"`
	Remaining    float64            `json:"remaining_seconds"`
	Rooms        int                `json:"rooms"`
	RoundSeconds float64            `json:"round_seconds"`
	Countdown    float64            `json:"countdown_seconds"`
	MinLobby     int                `json:"min_lobby"`
	Participants []string           `json:"participants"`
	Lobby        []string           `json:"lobby"`
	Pairs        []pairing.RoomPair `json:"pairs"`
	Graph        *pairing.MetGraph  `json:"graph,omitempty"`
	GraphRound   int                `json:"graph_round,omitempty"`
	Away         []string           `json:"away,omitempty"`
}

func (s *server) events(ctx context.Context, id string) (any, error) {
	views, err := s.o.Pairing.ListEvents(ctx)
	if err != nil {
		return nil, err
	}
	now := s.o.Now()
	type summary struct {
		ID           string        `json:"id"`
		Name         string        `json:"name"`
		Phase        pairing.Phase `json:"phase"`
		Round        int           `json:"round"`
		Participants int           `json:"participants"`
		Lobby        int           `json:"lobby"`
	}
	list := []summary{}
	for i, v := range views {
		if i == maxListedEvents {
			break
		}
		list = append(list, summary{ID: v.ID, Name: v.Name, Phase: v.Phase, Round: v.Round, Participants: len(v.Participants), Lobby: len(v.Lobby)})
	}
	out := map[string]any{"events": list, "total": len(views)}
	if id == "" {
		return out, nil
	}
	v, err := s.o.Pairing.GetEvent(ctx, id)
	if err != nil {
		return nil, err
	}
	g, err := s.o.Pairing.MetGraph(ctx, id)
	if err != nil {
		return nil, err
	}
	e := eventOut{
		ID: v.ID, Name: v.Name, Phase: v.Phase, Status: eventStatus(v), Paused: v.Paused, Round: v.Round,
		Rooms: v.Config.Rooms, RoundSeconds: v.Config.Round.Seconds(), Countdown: v.Config.Countdown.Seconds(), MinLobby: v.Config.MinLobby,
		Participants: nonNil(v.Participants), Lobby: nonNil(v.Lobby), Pairs: v.Pairs, Graph: &g.MetGraph, GraphRound: g.Round,
	}
	if e.Pairs == nil {
		e.Pairs = []pairing.RoomPair{}
	}
	if e.Graph.Edges == nil {
		e.Graph.Edges = []pairing.MetEdge{}
	}
	e.Graph.Participants = nonNil(e.Graph.Participants)
	if !v.Deadline.IsZero() {
		e.Remaining = math.Max(0, math.Round(v.Deadline.Sub(now).Seconds()))
	}
	// Present but neither in the lobby nor in a room: away.
	busy := map[string]bool{}
	for _, p := range v.Lobby {
		busy[p] = true
	}
	for _, p := range v.Pairs {
		busy[p.A], busy[p.B] = true, true
	}
	for _, p := range v.Participants {
		if !busy[p] {
			e.Away = append(e.Away, p)
		}
	}
	out["event"] = e
	return out, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// bucketOut is one bucket of a finder, its label in words.
type bucketOut struct {
	opponent.BucketStats
	Label string `json:"label"`
}

type finderOut struct {
	Name          string            `json:"name"`
	Counters      opponent.Counters `json:"counters"`
	Buckets       int               `json:"buckets"`
	Players       int               `json:"players"`
	Entries       int               `json:"entries"`
	Capacity      int               `json:"capacity"`
	CacheSize     int               `json:"cache_size"`
	HasModel      bool              `json:"has_sizing_model"`
	ScanEnabled   bool              `json:"scan_enabled"`
	StoresPlayers bool              `json:"stores_players"`
	PerBucket     []bucketOut       `json:"per_bucket"`
}

// maxListedBuckets bounds the buckets a snapshot lists per finder, fullest
// first being what an operator looks for.
const maxListedBuckets = 500

func (s *server) finders() (any, error) {
	out := []finderOut{}
	for _, name := range s.o.Opponents.Finders() {
		st, err := s.o.Opponents.Stats(name, true)
		if err != nil {
			return nil, err
		}
		f := finderOut{Name: name, Counters: st.Counters, Buckets: st.Buckets, Players: st.Players, Entries: st.Entries,
			Capacity: st.Capacity, CacheSize: st.CacheSize, HasModel: st.HasModel, ScanEnabled: st.ScanEnabled,
			StoresPlayers: st.StoresPlayers, PerBucket: []bucketOut{}}
		for i, b := range st.PerBucket {
			if i == maxListedBuckets {
				break
			}
			f.PerBucket = append(f.PerBucket, bucketOut{BucketStats: b, Label: labelWords(b)})
		}
		out = append(out, f)
	}
	return map[string]any{"finders": out}, nil
}

// labelWords says a bucket's key in words: "mmr=3|arena=\"forest\""
// becomes `MMR 1500 to 1750, arena "forest"`.
func labelWords(b opponent.BucketStats) string {
	var parts []string
	for _, kv := range strings.Split(b.Key, "|") {
		k, v, ok := strings.Cut(kv, "=")
		switch {
		case !ok:
			parts = append(parts, kv)
		case k == "mmr":
			parts = append(parts, fmt.Sprintf("MMR %s to %s", num(b.MMRLow), num(b.MMRHigh)))
		case v == "*" || v == "":
			parts = append(parts, k+" any")
		default:
			if u, err := strconv.Unquote(v); err == nil {
				v = fmt.Sprintf("%q", u)
			}
			parts = append(parts, k+" "+v)
		}
	}
	return strings.Join(parts, ", ")
}

func num(f float64) string { return strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64) }
