package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"sort"
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
	target      string
	queue       string
	tickets     int
	concurrency int
	timeout     time.Duration
	watch       bool
	rate        int
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
			return nil
		},
	}
	cmd.Flags().StringVar(&f.target, "target", "http://"+DefaultAddr, "server base URL")
	cmd.Flags().StringVar(&f.queue, "queue", "duel", "a 1v1 queue with an mmr distance rule")
	cmd.Flags().IntVar(&f.tickets, "tickets", 20000, "tickets to create (rounded up to even)")
	cmd.Flags().IntVar(&f.concurrency, "concurrency", 256, "concurrent creating workers")
	cmd.Flags().DurationVar(&f.timeout, "timeout", 2*time.Minute, "give up after this long")
	cmd.Flags().BoolVar(&f.watch, "watch", true, "watch every ticket for its match (off: measure intake alone)")
	cmd.Flags().IntVar(&f.rate, "rate", 0, "create at most this many tickets per second (0: as fast as the server takes them); latency is best read at a rate the server sustains")
	return cmd
}

// loadReport is what a load run measured.
type loadReport struct {
	Tickets       int
	Errors        int64
	Notified      int
	Unmatched     int
	IntakeSeconds float64
	NotifyLatency []time.Duration // match committed → client told
	EndToEnd      []time.Duration // ticket created → client told
}

func (r loadReport) String() string {
	s := fmt.Sprintf("tickets created: %d in %.2fs = %.0f durable tickets/s (errors: %d)\n",
		r.Tickets, r.IntakeSeconds, float64(r.Tickets)/r.IntakeSeconds, r.Errors)
	s += fmt.Sprintf("matched and notified: %d (left waiting without a partner in range: %d)\n", r.Notified, r.Unmatched)
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
	n := f.tickets + f.tickets%2
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	client := cupidv1connect.NewTicketServiceClient(h2cClient(), f.target, connect.WithGRPC())

	var (
		mu       sync.Mutex
		rep      = loadReport{Tickets: n}
		errs     atomic.Int64
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
		go func() {
			defer created.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				pace(i)
				req := &cupidv1.CreateTicketRequest{
					Queue: f.queue,
					Players: []*cupidv1.Player{{
						Id:         fmt.Sprintf("load-%d-%d", start.UnixNano(), i),
						Attributes: map[string]*structpb.Value{"mmr": structpb.NewNumberValue(mmr[i])},
					}},
				}
				res, err := client.CreateTicket(ctx, connect.NewRequest(req))
				if err != nil {
					errs.Add(1)
					continue
				}
				t := res.Msg.GetTicket()
				if !f.watch {
					continue
				}
				watchers.Add(1)
				go func() {
					defer watchers.Done()
					stream, err := client.WatchTicket(ctx, connect.NewRequest(&cupidv1.WatchTicketRequest{Id: t.GetId()}))
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
	rep.Unmatched = n - rep.Notified
	return rep, nil
}
