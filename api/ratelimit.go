package api

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// Rate limits: each caller has a token bucket, refilled at Rate tokens a
// second up to Burst. A server key's bucket is found by the key's name, a
// player's by his token's sub and, on a server without auth, a client's by
// its IP address. A Connect call takes one token (a CreateTickets one per
// ticket) before its authorization and its handler run, a WebSocket one
// before its upgrade; a call that finds too few is refused with
// resource_exhausted, a Retry-After header (whole seconds) and a message
// saying when to retry, and takes nothing.
//
// The buckets are written here rather than with golang.org/x/time/rate:
// the bucket is a dozen lines, the limiter must say how long a refused
// call must wait without reserving tokens, it must take its clock from the
// tests, and it lives in a map bounded by its own eviction, which needs
// each bucket's last use anyway; a rate.Limiter per caller would add a
// dependency and a mutex per bucket for none of that.

// RateLimit is one kind of caller's bucket: Rate calls a second, Burst at
// once. A zero Rate turns the limit off.
type RateLimit struct {
	Rate  float64
	Burst int
}

// RateLimits configure the buckets of each kind of caller. The zero value
// limits nobody.
type RateLimits struct {
	// ServerKeys is each server key's bucket, Players each player's.
	ServerKeys, Players RateLimit
	// Anonymous is each IP address's bucket on a server without auth.
	Anonymous RateLimit
	// MaxBuckets bounds the buckets of each kind; DefaultMaxRateBuckets
	// when 0. Past it, the least recently seen caller's bucket is dropped
	// (and that caller starts again with a full one).
	MaxBuckets int
	// Now is the buckets' clock; time.Now when nil.
	Now func() time.Time
}

// DefaultMaxRateBuckets bounds the buckets of each kind when not told:
// about 10 MB of memory each at most.
const DefaultMaxRateBuckets = 100_000

// rateLimiter holds the buckets of a server; nil when every limit is off.
type rateLimiter struct {
	keys, players, anonymous *buckets // nil when that limit is off
	auth                     bool
}

// newRateLimiter returns the limiter of l, nil when it limits nobody.
// auth says whether callers are authenticated (keys and players) or known
// by their address.
func newRateLimiter(l RateLimits, auth bool) *rateLimiter {
	if l.MaxBuckets <= 0 {
		l.MaxBuckets = DefaultMaxRateBuckets
	}
	if l.Now == nil {
		l.Now = time.Now
	}
	r := &rateLimiter{auth: auth}
	if auth {
		r.keys = newBuckets("server key", l.ServerKeys, l.MaxBuckets, l.Now)
		r.players = newBuckets("player", l.Players, l.MaxBuckets, l.Now)
		if r.keys == nil && r.players == nil {
			return nil
		}
	} else {
		r.anonymous = newBuckets("address", l.Anonymous, l.MaxBuckets, l.Now)
		if r.anonymous == nil {
			return nil
		}
	}
	return r
}

// bucketsFor returns the buckets and the name of a caller: c on a server
// with auth (nil: not authenticated, which auth refuses), else the address.
func (r *rateLimiter) bucketsFor(c *Caller, addr string) (*buckets, string) {
	switch {
	case !r.auth:
		if host, _, err := net.SplitHostPort(addr); err == nil {
			addr = host
		}
		return r.anonymous, addr
	case c == nil:
		return nil, ""
	case c.Key != nil:
		return r.keys, c.Key.Name
	}
	return r.players, c.Player
}

// allow takes n tokens from the caller's bucket, or returns the
// resource_exhausted error that refuses the call.
func (r *rateLimiter) allow(c *Caller, addr string, n int) *connect.Error {
	b, who := r.bucketsFor(c, addr)
	if b == nil {
		return nil
	}
	return b.take(who, n)
}

// callCost is what a call counts: a CreateTickets or CancelTickets its
// tickets, any other call one.
func callCost(msg any) int {
	switch m := msg.(type) {
	case *cupidv1.CreateTicketsRequest:
		return max(1, len(m.GetTickets()))
	case *cupidv1.CancelTicketsRequest:
		return max(1, len(m.GetIds()))
	}
	return 1
}

// handlerOptions returns the interceptor that limits Connect calls; it
// must come before auth's, so a refused call is not authorized either.
func (r *rateLimiter) handlerOptions() []connect.HandlerOption {
	if r == nil {
		return nil
	}
	return []connect.HandlerOption{connect.WithInterceptors(&rateInterceptor{r: r})}
}

type rateInterceptor struct{ r *rateLimiter }

func (i *rateInterceptor) WrapUnary(next connect.UnaryFunc) connect.UnaryFunc {
	return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
		if err := i.r.allow(CallerFrom(ctx), req.Peer().Addr, callCost(req.Any())); err != nil {
			return nil, err
		}
		return next(ctx, req)
	}
}

func (i *rateInterceptor) WrapStreamingClient(next connect.StreamingClientFunc) connect.StreamingClientFunc {
	return next
}

// WrapStreamingHandler counts a stream (WatchTicket, WatchEvent) once, as
// it opens.
func (i *rateInterceptor) WrapStreamingHandler(next connect.StreamingHandlerFunc) connect.StreamingHandlerFunc {
	return func(ctx context.Context, conn connect.StreamingHandlerConn) error {
		if err := i.r.allow(CallerFrom(ctx), conn.Peer().Addr, 1); err != nil {
			return err
		}
		return next(ctx, conn)
	}
}

// sockets limits WebSocket upgrades: past the limit the answer is HTTP 429
// with Retry-After, before auth looks the ticket up. With auth on, the
// caller is authenticated here too (a SHA-256, or a token's signature:
// microseconds, for a request that opens a long-lived socket); a request
// that does not authenticate is passed on for auth to refuse.
func (r *rateLimiter) sockets(h http.Handler, a *Auth) http.Handler {
	if r == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if isSocket(req) {
			var c *Caller
			if a != nil {
				cred, err := credential(req)
				if err == nil {
					c, _ = a.authenticate(cred)
				}
			}
			if err := r.allow(c, req.RemoteAddr, 1); err != nil {
				writeRateError(w, err)
				return
			}
		}
		h.ServeHTTP(w, req)
	})
}

// writeRateError answers a plain HTTP request refused by its rate limit:
// 429, Retry-After, and a JSON error in the shape of Connect's.
func writeRateError(w http.ResponseWriter, err *connect.Error) {
	if ra := err.Meta().Get("Retry-After"); ra != "" {
		w.Header().Set("Retry-After", ra)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusTooManyRequests)
	json.NewEncoder(w).Encode(map[string]string{"code": err.Code().String(), "message": err.Message()})
}

// buckets are the token buckets of one kind of caller, split in shards
// that each hold a map and a list from most to least recently used. A new
// bucket first drops idle ones from the list's end (a bucket refilled to
// its burst is the same as none), then, when the shard is full, the least
// recently used one whatever its tokens.
type buckets struct {
	what     string // "server key", "player", "address": for messages
	rate     float64
	burst    float64
	idle     time.Duration // from empty to full: a bucket unused this long is full
	now      func() time.Time
	perShard int
	seed     maphash.Seed
	shards   []bucketShard
	// evicted counts buckets dropped while not yet full.
	evicted atomic.Int64
}

type bucketShard struct {
	mu         sync.Mutex
	m          map[string]*bucket
	head, tail *bucket // most and least recently used
	_          [40]byte
}

type bucket struct {
	who        string
	tokens     float64
	last       time.Time
	prev, next *bucket
}

const maxBucketShards = 16

func newBuckets(what string, l RateLimit, maxBuckets int, now func() time.Time) *buckets {
	if l.Rate <= 0 || math.IsNaN(l.Rate) {
		return nil
	}
	burst := l.Burst
	if burst <= 0 {
		burst = max(1, int(math.Ceil(2*l.Rate)))
	}
	n := min(maxBucketShards, maxBuckets)
	b := &buckets{
		what: what, rate: l.Rate, burst: float64(burst), now: now,
		idle:     time.Duration(float64(burst) / l.Rate * float64(time.Second)),
		perShard: max(1, maxBuckets/n),
		seed:     maphash.MakeSeed(),
		shards:   make([]bucketShard, n),
	}
	for i := range b.shards {
		b.shards[i].m = map[string]*bucket{}
	}
	return b
}

// take takes n tokens from who's bucket, or none and returns the error
// that says how long until it holds n.
func (b *buckets) take(who string, n int) *connect.Error {
	need := float64(n)
	if need > b.burst {
		return connect.NewError(connect.CodeResourceExhausted, fmt.Errorf(
			"rate limit: this call counts %d (one per ticket), more than the %g %s %s may make at once (%g a second); send fewer per call",
			n, b.burst, callsWord(b.burst), b.describe(who), b.rate))
	}
	now := b.now()
	s := &b.shards[maphash.String(b.seed, who)%uint64(len(b.shards))]
	s.mu.Lock()
	k := s.m[who]
	if k == nil {
		k = s.add(b, who, now)
	} else {
		if d := now.Sub(k.last); d > 0 {
			k.tokens = min(b.burst, k.tokens+d.Seconds()*b.rate)
			k.last = now
		}
		s.touch(k)
	}
	// tokenSlack forgives the rounding of float sums: a caller who waits
	// the time he was told is served.
	const tokenSlack = 1e-6
	if k.tokens+tokenSlack >= need {
		k.tokens = max(0, k.tokens-need)
		s.mu.Unlock()
		return nil
	}
	wait := time.Duration(math.Round((need - k.tokens) / b.rate * float64(time.Second)))
	s.mu.Unlock()
	return b.refusal(who, n, wait)
}

// refusal is the error of a call that must wait.
func (b *buckets) refusal(who string, n int, wait time.Duration) *connect.Error {
	shown := wait.Truncate(time.Millisecond)
	if shown < wait {
		shown += time.Millisecond
	}
	count := ""
	if n > 1 {
		count = fmt.Sprintf(" this call counts %d (one per ticket);", n)
	}
	err := connect.NewError(connect.CodeResourceExhausted, fmt.Errorf(
		"rate limit: %s may make %g calls a second (%g at once);%s retry in %v",
		b.describe(who), b.rate, b.burst, count, shown))
	err.Meta().Set("Retry-After", strconv.FormatInt(int64(math.Ceil(wait.Seconds())), 10))
	return err
}

func (b *buckets) describe(who string) string {
	if b.what == "address" {
		return "address " + who
	}
	return b.what + " " + who
}

func callsWord(n float64) string {
	if n == 1 {
		return "call"
	}
	return "calls"
}

// add makes who's bucket, full, after dropping idle buckets and, at the
// cap, the least recently used one.
func (s *bucketShard) add(b *buckets, who string, now time.Time) *bucket {
	for i := 0; i < 2 && s.tail != nil && now.Sub(s.tail.last) >= b.idle; i++ {
		s.remove(s.tail)
	}
	if len(s.m) >= b.perShard && s.tail != nil {
		b.evicted.Add(1)
		s.remove(s.tail)
	}
	k := &bucket{who: who, tokens: b.burst, last: now}
	s.m[who] = k
	s.pushFront(k)
	return k
}

func (s *bucketShard) remove(k *bucket) {
	delete(s.m, k.who)
	s.unlink(k)
}

func (s *bucketShard) unlink(k *bucket) {
	if k.prev != nil {
		k.prev.next = k.next
	} else {
		s.head = k.next
	}
	if k.next != nil {
		k.next.prev = k.prev
	} else {
		s.tail = k.prev
	}
	k.prev, k.next = nil, nil
}

func (s *bucketShard) pushFront(k *bucket) {
	k.next = s.head
	if s.head != nil {
		s.head.prev = k
	}
	s.head = k
	if s.tail == nil {
		s.tail = k
	}
}

func (s *bucketShard) touch(k *bucket) {
	if s.head == k {
		return
	}
	s.unlink(k)
	s.pushFront(k)
}

// len is the number of buckets held (for tests).
func (b *buckets) len() int {
	n := 0
	for i := range b.shards {
		s := &b.shards[i]
		s.mu.Lock()
		n += len(s.m)
		s.mu.Unlock()
	}
	return n
}
