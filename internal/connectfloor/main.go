// Command connectfloor measures the transport floor of the player's path
// (docs/PERFORMANCE.md, "The player's path"): it sends unary Connect calls
// that the server refuses before any work of its own — GetTicket without
// an id — at a fixed rate, from as many workers and over the same gRPC
// h2c client as cupid load sends its creates. The server's CPU per call,
// read from /proc around a run, is what HTTP/2, Connect and the API's
// middleware cost a create before the ticket service sees it.
//
//	go run ./internal/connectfloor --target http://127.0.0.1:7070 --calls 10000 --rate 1000
package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"sort"
	"sync"
	"time"

	"connectrpc.com/connect"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
)

func main() {
	target := flag.String("target", "http://127.0.0.1:7070", "server base URL")
	n := flag.Int("calls", 10000, "calls to send")
	rate := flag.Int("rate", 1000, "calls per second (0: as fast as the server answers)")
	workers := flag.Int("concurrency", 256, "concurrent workers, as cupid load's")
	flag.Parse()
	tr := &http.Transport{MaxIdleConnsPerHost: 64, DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext, TLSClientConfig: &tls.Config{}}
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	tr.Protocols = p
	client := cupidv1connect.NewTicketServiceClient(&http.Client{Transport: tr}, *target, connect.WithGRPC())
	var (
		mu   sync.Mutex
		lat  []time.Duration
		next int
		wg   sync.WaitGroup
	)
	start := time.Now()
	for range *workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i >= *n {
					return
				}
				if *rate > 0 {
					time.Sleep(time.Until(start.Add(time.Duration(float64(i) / float64(*rate) * float64(time.Second)))))
				}
				t0 := time.Now()
				_, err := client.GetTicket(context.Background(), connect.NewRequest(&cupidv1.GetTicketRequest{}))
				d := time.Since(t0)
				if connect.CodeOf(err) != connect.CodeInvalidArgument {
					fmt.Fprintln(os.Stderr, "connectfloor: want invalid_argument, got:", err)
					os.Exit(1)
				}
				mu.Lock()
				lat = append(lat, d)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	el := time.Since(start).Seconds()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	fmt.Printf("calls: %d in %.2fs = %.0f calls/s; round trip p50 %v p99 %v\n", *n, el, float64(*n)/el,
		lat[len(lat)/2].Round(10*time.Microsecond), lat[len(lat)*99/100].Round(10*time.Microsecond))
}
