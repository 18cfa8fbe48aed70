package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"github.com/coder/websocket"
	"google.golang.org/protobuf/types/known/structpb"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/internal/testclock"
)

// wantRefused fails unless err refuses a call for its rate: resource
// exhausted, Retry-After retryAfter, a message mentioning each of mention.
func wantRefused(t *testing.T, err error, retryAfter string, mention ...string) {
	t.Helper()
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeResourceExhausted {
		t.Fatalf("got %v, want resource_exhausted", err)
	}
	if got := ce.Meta().Get("Retry-After"); got != retryAfter {
		t.Errorf("Retry-After %q, want %q (%v)", got, retryAfter, err)
	}
	for _, m := range mention {
		if !strings.Contains(ce.Message(), m) {
			t.Errorf("message %q does not mention %q", ce.Message(), m)
		}
	}
}

func TestBucketRefusesPastBurstAndRecovers(t *testing.T) {
	c := testclock.At(epoch)
	b := newBuckets("player", RateLimit{Rate: 2, Burst: 4}, 100, c.Now)
	for i := range 4 {
		if err := b.take("alice", 1); err != nil {
			t.Fatalf("call %d within the burst: %v", i, err)
		}
	}
	// Empty: the next token comes in half a second.
	wantRefused(t, b.take("alice", 1), "1", "player alice", "2 calls a second", "4 at once", "retry in 500ms")
	c.Advance(499 * time.Millisecond)
	wantRefused(t, b.take("alice", 1), "1", "retry in 1ms")
	c.Advance(time.Millisecond)
	if err := b.take("alice", 1); err != nil {
		t.Fatalf("after the time the refusal said: %v", err)
	}
	// A refused call takes nothing: after 3 s the bucket is full again
	// (4, not more), whatever was refused meanwhile.
	wantRefused(t, b.take("alice", 1), "1")
	c.Advance(3 * time.Second)
	for i := range 4 {
		if err := b.take("alice", 1); err != nil {
			t.Fatalf("refilled, call %d: %v", i, err)
		}
	}
	// A long wait rounds Retry-After up to whole seconds.
	wantRefused(t, b.take("alice", 3), "2", "this call counts 3", "retry in 1.5s")
}

func TestBucketsOfCallersAreIndependent(t *testing.T) {
	c := testclock.At(epoch)
	b := newBuckets("server key", RateLimit{Rate: 1, Burst: 2}, 100, c.Now)
	for range 2 {
		if err := b.take("backend", 1); err != nil {
			t.Fatal(err)
		}
	}
	wantRefused(t, b.take("backend", 1), "1", "server key backend")
	for range 2 {
		if err := b.take("lobby", 1); err != nil {
			t.Fatalf("another key is limited by backend's calls: %v", err)
		}
	}
	// And the kinds: a key, a player and an address have their own buckets
	// even under one name.
	r := newRateLimiter(RateLimits{ServerKeys: RateLimit{Rate: 1, Burst: 1}, Players: RateLimit{Rate: 1, Burst: 1}, Now: c.Now}, true)
	key := &Caller{Key: &ServerKey{Name: "bob"}}
	bob := &Caller{Player: "bob"}
	if err := r.allow(key, "127.0.0.1:1", 1); err != nil {
		t.Fatal(err)
	}
	if err := r.allow(bob, "127.0.0.1:1", 1); err != nil {
		t.Fatalf("player bob limited by key bob: %v", err)
	}
	wantRefused(t, r.allow(key, "127.0.0.1:1", 1), "1", "server key bob")
	wantRefused(t, r.allow(bob, "127.0.0.1:1", 1), "1", "player bob")
	// Without auth, a client is its address, whatever its port.
	anon := newRateLimiter(RateLimits{Anonymous: RateLimit{Rate: 1, Burst: 1}, Now: c.Now}, false)
	if err := anon.allow(nil, "10.0.0.1:5000", 1); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, anon.allow(nil, "10.0.0.1:5001", 1), "1", "address 10.0.0.1")
	if err := anon.allow(nil, "[::1]:5000", 1); err != nil {
		t.Fatalf("another address: %v", err)
	}
	// Every limit off: no limiter at all.
	if newRateLimiter(RateLimits{Anonymous: RateLimit{Rate: 1}}, true) != nil || newRateLimiter(RateLimits{}, false) != nil {
		t.Error("a limiter without limits")
	}
}

func TestBulkCountsItsTickets(t *testing.T) {
	if n := callCost(&cupidv1.CreateTicketsRequest{Tickets: make([]*cupidv1.CreateTicketRequest, 7)}); n != 7 {
		t.Errorf("CreateTickets of 7 counts %d", n)
	}
	if n := callCost(&cupidv1.CreateTicketsRequest{}); n != 1 {
		t.Errorf("an empty CreateTickets counts %d, want 1", n)
	}
	if n := callCost(&cupidv1.CreateTicketRequest{}); n != 1 {
		t.Errorf("CreateTicket counts %d", n)
	}
	c := testclock.At(epoch)
	b := newBuckets("player", RateLimit{Rate: 1, Burst: 5}, 100, c.Now)
	if err := b.take("p", 3); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, b.take("p", 3), "1", "counts 3", "retry in 1s")
	if err := b.take("p", 2); err != nil {
		t.Fatalf("two of five left: %v", err)
	}
	// More than the burst can never pass: said so, with no Retry-After.
	wantRefused(t, b.take("q", 6), "", "counts 6", "more than the 5 calls player q may make at once", "send fewer")
}

func TestBucketsStayBounded(t *testing.T) {
	c := testclock.At(epoch)
	const maxBuckets = 256
	b := newBuckets("address", RateLimit{Rate: 10, Burst: 20}, maxBuckets, c.Now)
	// A flood of distinct callers, each making one call, all at one instant:
	// none is idle, so the cap evicts the least recently seen.
	for i := range 100_000 {
		if err := b.take(fmt.Sprintf("10.%d.%d.%d", i>>16, (i>>8)&255, i&255), 1); err != nil {
			t.Fatal(err)
		}
		if i%1000 == 0 && b.len() > maxBuckets {
			t.Fatalf("%d buckets after %d callers, cap %d", b.len(), i+1, maxBuckets)
		}
	}
	if n := b.len(); n > maxBuckets || n < maxBuckets/2 {
		t.Fatalf("%d buckets, want at most %d (and most of it used)", n, maxBuckets)
	}
	if b.evicted.Load() == 0 {
		t.Error("no eviction counted")
	}
	// Once they are idle (full again, after burst/rate = 2 s), new callers
	// drop them instead of evicting live buckets.
	c.Advance(2 * time.Second)
	before := b.evicted.Load()
	for i := range 64 {
		if err := b.take(fmt.Sprintf("new-%d", i), 1); err != nil {
			t.Fatal(err)
		}
	}
	if b.evicted.Load() != before {
		t.Errorf("%d live buckets evicted while idle ones were there", b.evicted.Load()-before)
	}
	// A caller that keeps calling keeps his bucket, and its emptiness,
	// through a flood of a few new callers between his calls.
	hot := newBuckets("player", RateLimit{Rate: 1, Burst: 3}, 1024, c.Now)
	for i := range 3 {
		if err := hot.take("hot", 1); err != nil {
			t.Fatal(err)
		}
		for j := range 10 {
			hot.take(fmt.Sprintf("flood-%d-%d", i, j), 1)
		}
	}
	wantRefused(t, hot.take("hot", 1), "1", "player hot")
}

// TestRateLimitsThroughTheHandler: a caller past its burst is refused with
// resource_exhausted and Retry-After, over each protocol, before the
// handler runs; a bulk call counts its tickets; a WebSocket past the limit
// gets 429 with Retry-After; after the wait the caller is served again.
func TestRateLimitsThroughTheHandler(t *testing.T) {
	var e *env
	e = newEnv(t, envOptions{options: func(o *Options) {
		o.RateLimits = RateLimits{Anonymous: RateLimit{Rate: 1, Burst: 3}, Now: func() time.Time { return e.clock.Now() }}
	}})
	ctx := context.Background()
	c := e.client()
	n := 0
	mk := func(id string) *cupidv1.CreateTicketRequest {
		n++ // far apart: no two match
		return &cupidv1.CreateTicketRequest{Queue: "duel", Players: []*cupidv1.Player{{Id: id,
			Attributes: map[string]*structpb.Value{"mmr": structpb.NewNumberValue(float64(1000 * n))}}}}
	}
	for i := range 3 {
		if _, err := c.CreateTicket(ctx, connect.NewRequest(mk(fmt.Sprintf("p%d", i)))); err != nil {
			t.Fatalf("create %d: %v", i, err)
		}
	}
	_, err := c.CreateTicket(ctx, connect.NewRequest(mk("p3")))
	wantRefused(t, err, "1", "address 127.0.0.1", "retry in 1s")
	for name, cl := range e.clients() {
		_, err := cl.QueueStats(ctx, connect.NewRequest(&cupidv1.QueueStatsRequest{Queue: "duel"}))
		var ce *connect.Error
		if !errors.As(err, &ce) || ce.Code() != connect.CodeResourceExhausted || ce.Meta().Get("Retry-After") != "1" {
			t.Errorf("%s: %v (Retry-After %q)", name, err, ce.Meta().Get("Retry-After"))
		}
	}
	// Nothing of the refused create was done.
	if w, err := e.store.WaitingTickets(ctx); err != nil || len(w) != 3 {
		t.Errorf("%d waiting tickets after 3 creates and a refused one (%v)", len(w), err)
	}
	// A WebSocket upgrade past the limit: 429 and Retry-After.
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, res, err := websocket.Dial(dctx, strings.Replace(e.url, "http", "ws", 1)+"/v1/tickets/x/ws", nil)
	if err == nil || res == nil || res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") != "1" {
		t.Fatalf("socket past the limit: %v, %v", res, err)
	}
	// The time the refusal said: one call again.
	e.clock.Advance(time.Second)
	if _, err := c.CreateTicket(ctx, connect.NewRequest(mk("p3"))); err != nil {
		t.Fatalf("after the wait: %v", err)
	}
	// A bulk of three after three seconds takes the whole bucket; one of
	// four can never pass.
	e.clock.Advance(3 * time.Second)
	bulk := &cupidv1.CreateTicketsRequest{Tickets: []*cupidv1.CreateTicketRequest{mk("b0"), mk("b1"), mk("b2")}}
	if _, err := c.CreateTickets(ctx, connect.NewRequest(bulk)); err != nil {
		t.Fatalf("bulk of 3: %v", err)
	}
	_, err = c.QueueStats(ctx, connect.NewRequest(&cupidv1.QueueStatsRequest{Queue: "duel"}))
	wantRefused(t, err, "1")
	e.clock.Advance(3 * time.Second)
	bulk.Tickets = append(bulk.Tickets, mk("b3"))
	_, err = c.CreateTickets(ctx, connect.NewRequest(bulk))
	wantRefused(t, err, "", "counts 4", "send fewer")
}

// BenchmarkBucketTake is the limiter's cost per call: one key's bucket
// shared by every goroutine (the load test's case), and a caller each.
func BenchmarkBucketTake(b *testing.B) {
	bk := newBuckets("server key", RateLimit{Rate: 1e9, Burst: 1 << 30}, DefaultMaxRateBuckets, time.Now)
	b.Run("one-key", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				bk.take("backend", 1)
			}
		})
	})
	b.Run("many-players", func(b *testing.B) {
		names := make([]string, 10_000)
		for i := range names {
			names[i] = fmt.Sprintf("player-%d", i)
		}
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				bk.take(names[i%len(names)], 1)
				i++
			}
		})
	})
}
