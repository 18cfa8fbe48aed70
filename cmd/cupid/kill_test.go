package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"connectrpc.com/connect"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
)

// TestMain lets the test binary play the cupid binary: with CUPID_EXEC=1
// it runs the command line in CUPID_ARGS instead of the tests, so the kill
// test can start a real server process without a separate build; with
// CUPID_EXEC=argv it runs its own arguments, as the documentation's
// examples call cupid; with CUPID_EXEC=websocat it is the examples'
// websocat (docs_test.go).
func TestMain(m *testing.M) {
	switch os.Getenv("CUPID_EXEC") {
	case "websocat":
		os.Exit(websocatMain(os.Args[1:]))
	case "1", "argv":
		args := os.Args[1:]
		if os.Getenv("CUPID_EXEC") == "1" {
			args = nil
			json.Unmarshal([]byte(os.Getenv("CUPID_ARGS")), &args)
		}
		args = docTarget(args)
		root := rootCmd()
		root.SetArgs(args)
		if err := root.Execute(); err != nil {
			fmt.Fprintln(os.Stderr, "cupid:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// process is a server running as a child process.
type process struct {
	cmd  *exec.Cmd
	url  string
	mu   sync.Mutex
	last []string // the last lines of its log
}

func startProcess(t *testing.T, data string, extra ...string) *process {
	t.Helper()
	args, _ := json.Marshal(append([]string{"serve", "--addr", "127.0.0.1:0", "--data", data, "--log-format", "json"}, extra...))
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CUPID_EXEC=1", "CUPID_ARGS="+string(args))
	return startCmd(t, cmd)
}

// startCmd starts a server command (this test binary as cupid, or another
// build of it) and waits until it logs the address it listens on.
func startCmd(t *testing.T, cmd *exec.Cmd) *process {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	gone := make(chan struct{}) // its log ended: it exited
	p := &process{cmd: cmd}
	go func() {
		defer close(gone)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.keep(sc.Text())
			var line struct {
				Msg  string `json:"msg"`
				Addr string `json:"addr"`
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "listening" {
				addr <- line.Addr
			}
		}
	}()
	t.Cleanup(func() {
		p.kill()
		if t.Failed() {
			t.Logf("the last lines of server process %d:\n%s", cmd.Process.Pid, p.tail())
		}
	})
	select {
	case a := <-addr:
		p.url = "http://" + a
	case <-gone:
		t.Fatalf("server process exited before it listened; its last lines:\n%s", p.tail())
	case <-time.After(60 * time.Second):
		t.Fatalf("server process did not start listening; its last lines:\n%s", p.tail())
	}
	return p
}

// keep remembers the last lines the process logged, for a failing test to
// show.
func (p *process) keep(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.last) == 20 {
		p.last = p.last[1:]
	}
	p.last = append(p.last, line)
}

func (p *process) tail() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.last, "\n")
}

func (p *process) kill() {
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.cmd.Wait()
}

func (p *process) client() cupidv1connect.TicketServiceClient {
	return cupidv1connect.NewTicketServiceClient(h2cClient(), p.url, connect.WithGRPC())
}

// TestKillDashNineLosesNothing creates tickets from many goroutines, kills
// the server with SIGKILL while they are in flight, restarts it on the same
// data and checks: every acknowledged ticket is there; waiting ones kept
// their age and still match; matched ones report their match; no ticket is
// in two matches; a watcher that reconnects gets what it missed.
func TestKillDashNineLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	data := t.TempDir()
	p := startProcess(t, data)
	c := p.client()

	type acked struct {
		id      string
		created time.Time
		version string
	}
	var (
		mu   sync.Mutex
		acks []acked
		wg   sync.WaitGroup
	)
	ctx, cancel := context.WithCancel(context.Background())
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				// Pairs (w, i even/odd) share a server version no other
				// pair has: each pair matches, nobody else does.
				version := fmt.Sprintf("w%d-p%d", w, i/2)
				if i%7 == 6 {
					version += "-alone" // a loner: waits
				}
				res, err := c.CreateTicket(ctx, connect.NewRequest(&cupidv1.CreateTicketRequest{
					Queue: "duel", Version: version, Players: []*cupidv1.Player{player(fmt.Sprintf("w%d-%d", w, i), 1500)},
				}))
				if err != nil {
					return // the server died under us; not acknowledged
				}
				mu.Lock()
				acks = append(acks, acked{res.Msg.GetTicket().GetId(), res.Msg.GetTicket().GetCreatedAt().AsTime(), version})
				n := len(acks)
				mu.Unlock()
				if n == 300 {
					p.cmd.Process.Signal(syscall.SIGKILL)
				}
			}
		}(w)
	}
	// Should every worker fail early, kill anyway so the test ends.
	go func() { wg.Wait(); p.cmd.Process.Signal(syscall.SIGKILL) }()
	p.cmd.Wait()
	cancel()
	wg.Wait()
	if len(acks) < 300 {
		t.Fatalf("only %d tickets acknowledged before the kill", len(acks))
	}

	p2 := startProcess(t, data)
	c2 := p2.client()
	inMatch := map[string]string{} // ticket → match
	var waiting []acked
	for _, a := range acks {
		res, err := c2.GetTicket(context.Background(), connect.NewRequest(&cupidv1.GetTicketRequest{Id: a.id}))
		if err != nil {
			t.Fatalf("acknowledged ticket %s lost after kill -9: %v", a.id, err)
		}
		tk := res.Msg.GetTicket()
		if !tk.GetCreatedAt().AsTime().Equal(a.created) {
			t.Fatalf("ticket %s created_at %v, acknowledged as %v", a.id, tk.GetCreatedAt().AsTime(), a.created)
		}
		switch tk.GetState() {
		case cupidv1.TicketState_TICKET_STATE_WAITING:
			waiting = append(waiting, a)
		case cupidv1.TicketState_TICKET_STATE_MATCHED:
			m := tk.GetMatch()
			found := false
			for _, team := range m.GetTeams() {
				for _, id := range team.GetTicketIds() {
					if prev, ok := inMatch[id]; ok && prev != m.GetId() {
						t.Fatalf("ticket %s is in two matches: %s and %s", id, prev, m.GetId())
					}
					inMatch[id] = m.GetId()
					found = found || id == a.id
				}
			}
			if !found {
				t.Fatalf("ticket %s says match %s, which does not hold it", a.id, m.GetId())
			}
		default:
			t.Fatalf("ticket %s is %v after restart", a.id, tk.GetState())
		}
	}
	if len(waiting) == 0 {
		t.Fatal("no waiting ticket survived to test the reload; the loners should wait")
	}
	t.Logf("%d acknowledged before kill: %d matched, %d waiting", len(acks), len(inMatch), len(waiting))

	// Reloaded tickets are back in their pools: a partner of the same
	// version matches them. A watcher resuming after the created event gets the
	// match it missed.
	w := waiting[0]
	evs, err := c2.WatchTicket(context.Background(), connect.NewRequest(&cupidv1.WatchTicketRequest{Id: w.id}))
	if err != nil {
		t.Fatal(err)
	}
	if !evs.Receive() || evs.Msg().GetKind() != "created" {
		t.Fatalf("first event of %s: %v %v", w.id, evs.Msg(), evs.Err())
	}
	createdSeq := evs.Msg().GetSeq()
	evs.Close()
	if _, err := c2.CreateTicket(context.Background(), connect.NewRequest(&cupidv1.CreateTicketRequest{
		Queue: "duel", Version: w.version, Players: []*cupidv1.Player{player("late-partner", 1500)},
	})); err != nil {
		t.Fatal(err)
	}
	ev := waitFinal(t, c2, w.id, createdSeq)
	if ev.GetKind() != "matched" {
		t.Fatalf("reloaded ticket's final event %q, want matched", ev.GetKind())
	}
}
