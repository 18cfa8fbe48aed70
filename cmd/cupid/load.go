package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"
	"github.com/spf13/cobra"
	"google.golang.org/protobuf/types/known/structpb"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
)

type loadFlags struct {
	target string
	// key is a server key (tickets scope) sent with every call.
	key         string
	queue       string
	tickets     int
	concurrency int
	timeout     time.Duration
	watch       bool
	rate        int
	bulk        int
	hold        bool
}

func loadCmd() *cobra.Command {
	var f loadFlags
	cmd := &cobra.Command{
		Use:   "load",
		Short: "Drive a running server over loopback and report durable tickets/s and notification latency",
		Long: `load creates --tickets one-player tickets in a 1v1 queue from --concurrency
workers, each ticket watched over a gRPC stream. It reports how many tickets
per second the server made durable, and the latency percentiles from "match
formed" (the match's commit time on the server) and from "ticket created" to
"client told". Run it against a server on this machine so the clocks agree.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rep, err := runLoad(cmd.Context(), f, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			fmt.Fprint(cmd.OutOrStdout(), rep.String())
			if rep.Errors > 0 && rep.Errors >= int64(rep.Tickets) {
				// Nothing was measured: say so in the exit status, so a
				// script (or CI) running load does not take it for a run.
				return fmt.Errorf("no ticket was created (%d errors; the first: %s)", rep.Errors, rep.FirstError)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&f.target, "target", "http://"+DefaultAddr, "server base URL; several, comma-separated, for nodes sharing one database: workers create through each in turn and watch through the next, so every ticket's events cross nodes (memory readings come from the first)")
	cmd.Flags().StringVar(&f.key, "key", "", "server key with the tickets scope, for a server with auth on (also read from CUPID_KEY)")
	cmd.Flags().StringVar(&f.queue, "queue", "duel", "a 1v1 queue with an mmr distance rule")
	cmd.Flags().IntVar(&f.tickets, "tickets", 20000, "tickets to create (rounded up to even)")
	cmd.Flags().IntVar(&f.concurrency, "concurrency", 256, "concurrent creating workers")
	cmd.Flags().DurationVar(&f.timeout, "timeout", 2*time.Minute, "give up after this long")
	cmd.Flags().BoolVar(&f.watch, "watch", true, "watch every ticket for its match (off: measure intake alone)")
	cmd.Flags().IntVar(&f.bulk, "bulk", 0, "create tickets through CreateTickets, this many per call (0: one CreateTicket per ticket)")
	cmd.Flags().BoolVar(&f.hold, "hold", false, "create tickets that never match (skills 10,000 apart, so the queue's distance rule must set no max: see docs/examples/hold.yaml) and report the server's resident memory per waiting ticket; implies --watch=false")
	cmd.Flags().IntVar(&f.rate, "rate", 0, "create at most this many tickets per second (0: as fast as the server takes them); latency is best read at a rate the server sustains")
	return cmd
}

// loadReport is what a load run measured.
type loadReport struct {
	Tickets    int
	Errors     int64
	FirstError string
	// Watched says the tickets were watched for their matches; without
	// it Notified and Unmatched were not measured.
	Watched       bool
	Notified      int
	Unmatched     int
	IntakeSeconds float64
	NotifyLatency []time.Duration // match committed → client told
	EndToEnd      []time.Duration // ticket created → client told
	RSS           float64         // server resident memory right after a --hold run's intake
	RSSPerTicket  float64         // its growth per waiting ticket
	// SettledRSS is the resident memory once the server is quiet with the
	// tickets waiting: the Go runtime gives the intake's garbage back to
	// the system over some seconds, so this is what holding them costs.
	SettledRSS          float64
	SettledRSSPerTicket float64
	SettledAfter        time.Duration
}

func (r loadReport) String() string {
	s := fmt.Sprintf("tickets created: %d in %.2fs = %.0f durable tickets/s (errors: %d)\n",
		r.Tickets, r.IntakeSeconds, float64(r.Tickets)/r.IntakeSeconds, r.Errors)
	if r.Watched {
		s += fmt.Sprintf("matched and notified: %d (left waiting without a partner in range: %d)\n", r.Notified, r.Unmatched)
	} else {
		s += "matched and notified: not watched (--watch=false)\n"
	}
	if r.FirstError != "" {
		s += "first error: " + r.FirstError + "\n"
	}
	if r.RSS > 0 {
		s += fmt.Sprintf("server resident memory right after intake: %.0f MiB, %.0f bytes per waiting ticket\n", r.RSS/(1<<20), r.RSSPerTicket)
		if r.SettledRSS > 0 {
			s += fmt.Sprintf("server resident memory settled (after %s): %.0f MiB, %.0f bytes per waiting ticket\n",
				r.SettledAfter.Round(time.Second), r.SettledRSS/(1<<20), r.SettledRSSPerTicket)
		}
	}
	s += "match committed -> client told: " + percentiles(r.NotifyLatency) + "\n"
	s += "ticket created -> client told:  " + percentiles(r.EndToEnd) + "\n"
	return s
}

func percentiles(ds []time.Duration) string {
	if len(ds) == 0 {
		return "no samples"
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	at := func(p float64) time.Duration { return ds[min(len(ds)-1, int(p*float64(len(ds))))] }
	return fmt.Sprintf("p50 %v  p90 %v  p99 %v  max %v", at(0.5).Round(10*time.Microsecond), at(0.9).Round(10*time.Microsecond),
		at(0.99).Round(10*time.Microsecond), ds[len(ds)-1].Round(10*time.Microsecond))
}

// h2cClient speaks HTTP/2 without TLS, as gRPC needs on a plain port.
func h2cClient() *http.Client {
	tr := &http.Transport{
		MaxIdleConnsPerHost: 64,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		TLSClientConfig:     &tls.Config{},
	}
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	tr.Protocols = p
	return &http.Client{Transport: tr}
}

func runLoad(ctx context.Context, f loadFlags, progress io.Writer) (loadReport, error) {
	if f.tickets < 2 {
		return loadReport{}, fmt.Errorf("--tickets: at least 2")
	}
	if f.concurrency < 1 {
		return loadReport{}, fmt.Errorf("--concurrency: at least 1")
	}
	if f.rate < 0 {
		return loadReport{}, fmt.Errorf("--rate: must not be negative")
	}
	if f.bulk < 0 || f.bulk > 1000 {
		return loadReport{}, fmt.Errorf("--bulk: 0 to 1000")
	}
	if f.hold {
		f.watch = false
	}
	if f.key == "" {
		f.key = os.Getenv("CUPID_KEY")
	}
	targets := strings.Split(f.target, ",")
	f.target = targets[0]
	rssBefore, _ := serverRSS(ctx, f.target, f.key)
	n := f.tickets + f.tickets%2
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	clients := make([]cupidv1connect.TicketServiceClient, len(targets))
	for i, t := range targets {
		clients[i] = cupidv1connect.NewTicketServiceClient(withBearer(h2cClient(), f.key), strings.TrimSpace(t), connect.WithGRPC())
	}

	var (
		mu       sync.Mutex
		rep      = loadReport{Tickets: n}
		errs     atomic.Int64
		firstErr atomic.Pointer[error]
		next     atomic.Int64
		watchers sync.WaitGroup
		created  sync.WaitGroup
	)
	rng := rand.New(rand.NewPCG(1, 2))
	mmr := make([]float64, n)
	for i := 0; i < n; i += 2 {
		// Pairs created close together have equal skill, so each ticket
		// finds its partner soon after the partner arrives.
		v := 500 + float64(rng.IntN(2000))
		mmr[i], mmr[i+1] = v, v
		if f.hold {
			// Far beyond any distance the demo queues relax to.
			mmr[i], mmr[i+1] = float64(i)*10_000, float64(i+1)*10_000
		}
	}
	// With a rate, ticket i may start at start + i/rate: an open-loop
	// schedule, so a slow server cannot slow the arrivals down and hide
	// its own latency.
	start := time.Now()
	pace := func(i int) {
		if f.rate <= 0 {
			return
		}
		at := start.Add(time.Duration(float64(i) / float64(f.rate) * float64(time.Second)))
		if d := time.Until(at); d > 0 {
			time.Sleep(d)
		}
	}
	for w := 0; w < f.concurrency; w++ {
		created.Add(1)
		client, watcher := clients[w%len(clients)], clients[(w+1)%len(clients)]
		go func() {
			defer created.Done()
			per := max(f.bulk, 1)
			for {
				lo := int(next.Add(int64(per)) - int64(per))
				if lo >= n || ctx.Err() != nil {
					return
				}
				hi := min(lo+per, n)
				pace(hi - 1)
				reqs := make([]*cupidv1.CreateTicketRequest, 0, hi-lo)
				for i := lo; i < hi; i++ {
					reqs = append(reqs, &cupidv1.CreateTicketRequest{
						Queue: f.queue,
						Players: []*cupidv1.Player{{
							Id:         fmt.Sprintf("load-%d-%d", start.UnixNano(), i),
							Attributes: map[string]*structpb.Value{"mmr": structpb.NewNumberValue(mmr[i])},
						}},
					})
				}
				var made []*cupidv1.Ticket
				if f.bulk == 0 {
					res, err := retryLimited(ctx, func() (*connect.Response[cupidv1.CreateTicketResponse], error) {
						return client.CreateTicket(ctx, connect.NewRequest(reqs[0]))
					})
					if err != nil {
						firstErr.CompareAndSwap(nil, &err)
						errs.Add(1)
						continue
					}
					made = append(made, res.Msg.GetTicket())
				} else {
					res, err := retryLimited(ctx, func() (*connect.Response[cupidv1.CreateTicketsResponse], error) {
						return client.CreateTickets(ctx, connect.NewRequest(&cupidv1.CreateTicketsRequest{Tickets: reqs}))
					})
					if err != nil {
						firstErr.CompareAndSwap(nil, &err)
						errs.Add(int64(len(reqs)))
						continue
					}
					for _, r := range res.Msg.GetResults() {
						if r.GetError() != "" {
							err := errors.New(r.GetError())
							firstErr.CompareAndSwap(nil, &err)
							errs.Add(1)
							continue
						}
						made = append(made, r.GetTicket())
					}
				}
				if !f.watch {
					continue
				}
				for _, t := range made {

					watchers.Add(1)
					go func() {
						defer watchers.Done()
						stream, err := watcher.WatchTicket(ctx, connect.NewRequest(&cupidv1.WatchTicketRequest{Id: t.GetId()}))
						if err != nil {
							errs.Add(1)
							return
						}
						defer stream.Close()
						for stream.Receive() {
							ev := stream.Msg()
							if ev.GetKind() != "matched" {
								continue
							}
							told := time.Now()
							mu.Lock()
							rep.Notified++
							rep.NotifyLatency = append(rep.NotifyLatency, told.Sub(ev.GetMatch().GetCreatedAt().AsTime()))
							rep.EndToEnd = append(rep.EndToEnd, told.Sub(t.GetCreatedAt().AsTime()))
							mu.Unlock()
							return
						}
					}()
				}
			}
		}()
	}
	created.Wait()
	rep.IntakeSeconds = time.Since(start).Seconds()
	fmt.Fprintf(progress, "created %d tickets in %.2fs; waiting for notifications\n", n, rep.IntakeSeconds)
	// Random skills can leave a few tickets without a partner in range;
	// once notifications stop arriving, stop watching the rest.
	done := make(chan struct{})
	go func() { watchers.Wait(); close(done) }()
	last, lastChange := -1, time.Now()
wait:
	for {
		select {
		case <-done:
			break wait
		case <-time.After(200 * time.Millisecond):
			mu.Lock()
			got := rep.Notified
			mu.Unlock()
			if got != last {
				last, lastChange = got, time.Now()
			} else if time.Since(lastChange) > 5*time.Second {
				cancel()
				<-done
				break wait
			}
		}
	}
	rep.Errors = errs.Load()
	if e := firstErr.Load(); e != nil {
		rep.FirstError = (*e).Error()
	}
	rep.Watched = f.watch
	rep.Unmatched = n - rep.Notified
	if f.hold {
		rep.Unmatched = 0
		held := float64(n - int(rep.Errors))
		if m, err := serverMetrics(ctx, f.target, f.key); err == nil && rssBefore > 0 {
			rssAfter := m["process_resident_memory_bytes"]
			rep.RSSPerTicket = (rssAfter - rssBefore) / held
			rep.RSS = rssAfter
			// Settled: the intake's garbage was live at the garbage
			// collections during the burst and set a high heap goal; the
			// runtime gives the memory back only after a collection with
			// the burst over (the runtime forces one every two minutes
			// when nothing else does). So: a collection after the intake,
			// then two readings two seconds apart within 1 %.
			start, gcs, last := time.Now(), m["go_gc_duration_seconds_count"], rssAfter
			for time.Since(start) < 3*time.Minute {
				select {
				case <-ctx.Done():
					return rep, nil
				case <-time.After(2 * time.Second):
				}
				m, err := serverMetrics(ctx, f.target, f.key)
				if err != nil {
					break
				}
				now := m["process_resident_memory_bytes"]
				done := m["go_gc_duration_seconds_count"] > gcs && math.Abs(now-last) <= last/100
				last = now
				if done {
					rep.SettledRSS, rep.SettledAfter = last, time.Since(start)
					rep.SettledRSSPerTicket = (last - rssBefore) / held
					break
				}
			}
		}
	}
	return rep, nil
}

// serverRSS reads the server's resident memory from its /metrics.
func serverRSS(ctx context.Context, target, key string) (float64, error) {
	m, err := serverMetrics(ctx, target, key)
	if err != nil {
		return 0, err
	}
	return m["process_resident_memory_bytes"], nil
}

// serverMetrics reads the server's unlabelled series from its /metrics;
// one without process_resident_memory_bytes is an error.
func serverMetrics(ctx context.Context, target, key string) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	m := map[string]float64{}
	for _, line := range strings.Split(string(body), "\n") {
		name, v, ok := strings.Cut(line, " ")
		if !ok || strings.HasPrefix(line, "#") || strings.Contains(name, "{") {
			continue
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
			m[name] = f
		}
	}
	if _, ok := m["process_resident_memory_bytes"]; !ok {
		return nil, errors.New("the server's /metrics has no process_resident_memory_bytes")
	}
	return m, nil
}

// retryLimited calls f again after the server's Retry-After while the
// server's rate limit refuses it, as a well-behaved backend would; other
// errors end it.
func retryLimited[T any](ctx context.Context, f func() (*connect.Response[T], error)) (*connect.Response[T], error) {
	for {
		res, err := f()
		var ce *connect.Error
		if err == nil || !errors.As(err, &ce) || ce.Code() != connect.CodeResourceExhausted {
			return res, err
		}
		secs, perr := strconv.ParseFloat(ce.Meta().Get("Retry-After"), 64)
		if perr != nil {
			return res, err // not a rate limit: nothing says when to retry
		}
		wait := max(time.Duration(secs*float64(time.Second)), 10*time.Millisecond)
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
