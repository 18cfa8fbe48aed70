package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The server rows depend on the store; the lead re-measures them after the
// ticket lifecycle change, so the table says so beside them.
const storeNote = "Store-dependent: re-measured by the lead after the lifecycle change"

// server is a cupid serve the round started, on a fresh SQLite directory
// and a free loopback port.
type server struct {
	cmd *exec.Cmd
	url string
}

func (m *measurer) startServer(args ...string) (*server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	data, err := os.MkdirTemp(m.tmp, "data-")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(m.bins["./cmd/cupid"], append([]string{"serve", "--addr", addr, "--data", data, "--log-level", "warn"}, args...)...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, url: "http://" + addr}
	for deadline := time.Now().Add(30 * time.Second); ; {
		resp, err := http.Get(s.url + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("cupid serve on %s not ready after 30s", addr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stop ends the server this round started, and waits for it.
func (s *server) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

// load runs cupid load against the server and returns its report.
func (m *measurer) load(s *server, args ...string) (string, error) {
	cmd := exec.Command(m.bins["./cmd/cupid"], append([]string{"load", "--target", s.url}, args...)...)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("cupid load %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

var (
	durableRe = regexp.MustCompile(`= ([0-9.]+) durable tickets/s`)
	p99Re     = regexp.MustCompile(`match committed -> client told: .*p99 ([0-9.]+[µmn]?s)`)
	settledRe = regexp.MustCompile(`settled \(after [^)]*\): [0-9]+ MiB, ([0-9.]+) bytes per waiting ticket`)
)

// find reads the first group of re in a report.
func find(re *regexp.Regexp, report, what string) (string, error) {
	m := re.FindStringSubmatch(report)
	if m == nil {
		return "", fmt.Errorf("cupid load's report has no %s:\n%s", what, report)
	}
	return m[1], nil
}

func (m *measurer) server() error {
	s, err := m.startServer()
	if err != nil {
		return err
	}
	defer s.stop()

	// Durable intake through the bulk call, against the store alone in
	// batches of 256.
	const bulk = "cupid load --tickets 100000 --bulk 500 --concurrency 8 --watch=false"
	report, err := m.load(s, strings.Fields(bulk)[2:]...)
	if err != nil {
		return err
	}
	v, err := find(durableRe, report, "durable tickets/s")
	if err != nil {
		return err
	}
	intake, _ := strconv.ParseFloat(v, 64)
	rs, err := m.bench("./sqlite", "^BenchmarkCreateTickets$/^batch=256$", "2s")
	if err != nil {
		return err
	}
	m.table.add(row{target: "durable intake ≥ 10,000 tickets/s on the embedded store", command: bulk + " (server: cupid serve)",
		unit: "tickets/s", floorName: "the store alone, batches of 256 (go test ./sqlite -bench CreateTickets/batch=256)", floorUnit: "tickets/s",
		ratioName: "of the store's", ratio: over, note: storeNote, least: 10000},
		intake, rs["CreateTickets/batch=256"].values["tickets/s"])

	// Reported results through the rating service into SQLite, many
	// callers at once (group commit), against the store alone writing
	// results of the same bytes in batches of 256.
	const results = "go test ./service/ratingsvc -run '^$' -bench 'ReportResult5v5SQLite/callers=64|SaveResultsSQLite/batch=256' -benchtime 3000x"
	// A -bench pattern's alternatives cannot span its "/" levels: one
	// run each.
	rs, err = m.bench("./service/ratingsvc", "^BenchmarkReportResult5v5SQLite$/^callers=64$", "3000x")
	if err != nil {
		return err
	}
	saved, err := m.bench("./service/ratingsvc", "^BenchmarkSaveResultsSQLite$/^batch=256$", "3000x")
	if err != nil {
		return err
	}
	m.table.add(row{target: "reported results ≥ 10,000/s through the service on the embedded store (5v5)", command: results,
		unit: "results/s", floorName: "the store alone, batches of 256", floorUnit: "results/s",
		ratioName: "of the store's", ratio: over, least: 10000},
		rs["ReportResult5v5SQLite/callers=64"].values["results/s"], saved["SaveResultsSQLite/batch=256"].values["results/s"])

	// Notification latency at a rate the server sustains, against an
	// HTTP round trip to the same server at the same rate.
	const rate = "cupid load --tickets 20000 --rate 1000"
	report, err = m.load(s, strings.Fields(rate)[2:]...)
	if err != nil {
		return err
	}
	v, err = find(p99Re, report, "match committed -> client told p99")
	if err != nil {
		return err
	}
	p99, err := time.ParseDuration(v)
	if err != nil {
		return err
	}
	echo, err := echoP99(s.url+"/healthz", 1000, 5000)
	if err != nil {
		return err
	}
	m.table.add(row{target: "match formed → client told, p99 ≤ 50 ms over loopback", command: rate,
		unit: "ms p99", floorName: "GET /healthz at 1,000/s, p99", floorUnit: "ms",
		ratioName: "× the round trip", ratio: over, note: storeNote, most: 50},
		float64(p99)/1e6, float64(echo)/1e6)
	s.stop()

	// Resident memory per waiting ticket, settled.
	h, err := m.startServer("--config", "docs/examples/hold.yaml")
	if err != nil {
		return err
	}
	defer h.stop()
	const hold = "cupid load --queue hold --tickets 100000 --hold --bulk 500 --concurrency 8 --timeout 5m"
	report, err = m.load(h, strings.Fields(hold)[2:]...)
	if err != nil {
		return err
	}
	v, err = find(settledRe, report, "settled bytes per waiting ticket")
	if err != nil {
		return err
	}
	perTicket, _ := strconv.ParseFloat(v, 64)
	m.table.add(row{target: "server ≤ 1 KiB resident memory per waiting ticket with 100,000 waiting", command: hold + " (server: cupid serve --config docs/examples/hold.yaml)",
		unit: "B settled", note: storeNote, most: 1024}, perTicket, 0)
	return nil
}

// echoP99 sends n GET requests to url at rate per second, each from its
// own goroutine over a pool of kept-alive connections, and returns the 99th
// percentile of their round trips: the transport's share of a notification.
func echoP99(url string, rate, n int) (time.Duration, error) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}, Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	var (
		mu    sync.Mutex
		times []time.Duration
		first error
		wg    sync.WaitGroup
	)
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	for range n {
		<-tick.C
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
			start := time.Now()
			resp, err := client.Do(req)
			d := time.Since(start)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if first == nil {
					first = err
				}
				return
			}
			resp.Body.Close()
			times = append(times, d)
		}()
	}
	wg.Wait()
	if first != nil {
		return 0, fmt.Errorf("GET %s: %w", url, first)
	}
	slices.Sort(times)
	return times[min(len(times)-1, len(times)*99/100)], nil
}
