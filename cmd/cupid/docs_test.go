package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"gopkg.in/yaml.v3"

	"github.com/cupid-match/cupid/internal/doctest"
)

// TestDocs runs every shell example of README.md and docs/*.md, page by
// page, in the order a reader meets them, and compares what each prints
// with the output the page shows after it (internal/doctest says how a
// page marks its configuration, placeholders and the rare block that
// cannot run). A page added later is covered without new code.
//
// Each page runs in one bash, so variables and files carry from a block to
// the next as they would for a reader, in a temporary directory holding
// links to the repository's files (what the examples write stays there).
// "cupid" is this test binary playing the cupid command, "go run
// ./cmd/cupid" is read as "cupid", and websocat, which Debian does not
// package, is a stand-in that prints each message of a WebSocket as a
// line until the server closes it. localhost:7070 is the page's server:
// one the harness starts on the page's configuration, or the one a block
// starts itself with "cupid serve … &".
func TestDocs(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed (apt-get install curl): the documentation's examples are not run")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{filepath.Join(root, "README.md")}, pages...)
	bin := shimDir(t)
	ran := 0
	for _, path := range pages {
		rel, _ := filepath.Rel(root, path)
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		page, err := doctest.Parse(rel, string(text))
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		for _, b := range page.Blocks {
			if b.Runnable() {
				ran++
			}
		}
		t.Run(strings.ReplaceAll(rel, "/", "_"), func(t *testing.T) {
			runPage(t, root, bin, page)
		})
	}
	if ran < 30 {
		t.Errorf("found %d runnable shell blocks in README.md and docs/*.md; the harness no longer finds them", ran)
	}
}

// TestDocsHarnessNamesThePageAndLine: when a page shows an output the
// command does not print, the harness says the page, the line of the shown
// output and what differed, with the commands and what they printed.
func TestDocsHarnessNamesThePageAndLine(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	page, err := doctest.Parse("docs/wrong.md", "# A wrong page\n\n```sh\n"+
		"curl -s localhost:7070/cupid.v1.TicketService/CreateTicket -H 'Content-Type: application/json' \\\n"+
		"  -d '{\"queue\":\"duel\",\"players\":[{\"id\":\"alice\",\"attributes\":{\"mmr\":1500}}]}'\n"+
		"# {\"ticket\":{\"state\":\"TICKET_STATE_MATCHED\",…}}\n```\n")
	if err != nil {
		t.Fatal(err)
	}
	var msg string
	done := make(chan struct{})
	go func() {
		defer close(done)
		runPageWith(t, root, shimDir(t), page, func(format string, args ...any) {
			msg = fmt.Sprintf(format, args...)
			runtime.Goexit()
		})
	}()
	<-done
	for _, want := range []string{
		"docs/wrong.md:4: the example differs from what it printed",
		`line 6: $.ticket.state: got "TICKET_STATE_WAITING", the page shows "TICKET_STATE_MATCHED"`,
		"--- printed\n{\"ticket\":{",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("the harness said:\n%s\nwant %q in it", msg, want)
		}
	}
}

// docPage is what a page's run carries from block to block.
type docPage struct {
	t      *testing.T
	root   string
	sh     *docShell
	config string // "" for the built-in demo
	// configYAML is the page's configuration shown in yaml blocks.
	configYAML map[string]any
	server     *testServer
	port       int
	// selfServed: a block started the page's server itself ("cupid serve
	// … &"); the page's next blocks talk to it until a config directive.
	selfServed bool
	lets       []doctest.Let
	// fatalf ends the page's run with a difference (t.Fatalf; the
	// harness's own test records it instead).
	fatalf func(format string, args ...any)
	bound  map[string]string
}

func runPage(t *testing.T, root, bin string, page *doctest.Page) {
	runPageWith(t, root, bin, page, t.Fatalf)
}

// runPageWith is runPage reporting a difference through fatalf, which must
// not return.
func runPageWith(t *testing.T, root, bin string, page *doctest.Page, fatalf func(string, ...any)) {
	dir := pageDir(t, root)
	p := &docPage{t: t, root: root, bound: map[string]string{}, fatalf: fatalf}
	p.sh = startDocShell(t, dir, bin)
	for _, b := range page.Blocks {
		if b.Config != "" {
			p.useConfig(b.Config)
		}
		if b.IsConfig {
			p.useConfig(p.addConfigBlock(b))
		}
		if b.Skip != "" {
			t.Logf("%s: skipped: %s", b.Where(b.Line), b.Skip)
			continue
		}
		if !b.Runnable() {
			continue
		}
		segs, err := b.Segments()
		if err != nil {
			p.fatalf("%v", err)
		}
		for _, l := range b.Lets {
			// A later section may bind the same placeholder anew.
			delete(p.bound, l.Name)
			p.lets = append(p.lets, l)
		}
		for _, seg := range segs {
			p.runSegment(b, seg)
		}
	}
}

// addConfigBlock adds a yaml block marked "config" to the page's
// configuration and writes the whole to a file: a page may show its
// configuration in parts (a finder, then another), and each part's lists
// join those of the parts before.
func (p *docPage) addConfigBlock(b doctest.Block) string {
	t := p.t
	var part map[string]any
	if err := yaml.Unmarshal([]byte(strings.Join(b.Lines, "\n")), &part); err != nil {
		p.fatalf("%s: the configuration is not YAML: %v", b.Where(b.Line), err)
	}
	if p.configYAML == nil {
		p.configYAML = map[string]any{}
	}
	for k, v := range part {
		old, oldList := p.configYAML[k].([]any)
		add, addList := v.([]any)
		if oldList && addList {
			p.configYAML[k] = append(old, add...)
		} else {
			p.configYAML[k] = v
		}
	}
	data, err := yaml.Marshal(p.configYAML)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "cupid.yaml")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// useConfig makes the next example that needs a server start a fresh one
// on this configuration.
func (p *docPage) useConfig(config string) {
	if config == "demo" {
		config = ""
	} else if !filepath.IsAbs(config) {
		config = filepath.Join(p.root, config)
	}
	p.config = config
	p.selfServed = false
	if p.server != nil {
		p.server.stop()
		p.server = nil
	}
}

var (
	addrRe      = regexp.MustCompile(`(?:localhost|127\.0\.0\.1)?:7070\b`)
	selfServeRe = regexp.MustCompile(`(?m)^(\s*cupid serve\b.*&)\s*$`)
	// foregroundServeRe is a server started in the foreground, which
	// would hold the page's run forever.
	foregroundServeRe = regexp.MustCompile(`(?m)^\s*cupid serve\b[^&\n]*$`)
)

// runSegment runs one segment and compares what it printed with what the
// page shows; a difference ends the page's run (what follows depends on
// it) with a message naming the page, the line and what differed.
func (p *docPage) runSegment(b doctest.Block, seg doctest.Segment) {
	t := p.t
	script := seg.Script
	for _, r := range b.Rewrites {
		if !strings.Contains(script, r.Old) && !strings.Contains(strings.Join(b.Lines, "\n"), r.Old) {
			p.fatalf("%s: rewrite %q: the block does not contain it", b.Where(b.Line), r.Old)
		}
		script = strings.ReplaceAll(script, r.Old, r.New)
	}
	script = strings.ReplaceAll(script, "go run ./cmd/cupid ", "cupid ")
	for name, v := range p.bound {
		script = strings.ReplaceAll(script, name, v)
		script = strings.ReplaceAll(script, strings.ReplaceAll(name, "'", `'"'"'`), v)
	}
	for _, l := range p.lets {
		if _, ok := p.bound[l.Name]; !ok && (strings.Contains(script, l.Name) || strings.Contains(script, strings.ReplaceAll(l.Name, "'", `'"'"'`))) {
			p.fatalf("%s: %s is used before an output gave it (let %s = %s)", b.Where(seg.Line), l.Name, l.Name, l.Path)
		}
	}
	if m := foregroundServeRe.FindString(script); m != "" {
		p.fatalf("%s: %q runs until it is stopped: end it with & or mark the block skip (why)", b.Where(seg.Line), strings.TrimSpace(m))
	}
	if selfServeRe.MatchString(script) {
		// The block starts its own server: it gets a free port, and the
		// next line waits until it answers, as a reader would.
		if p.server != nil {
			p.server.stop()
			p.server = nil
		}
		p.selfServed = true
		p.port = freePort(t)
		script = selfServeRe.ReplaceAllStringFunc(script, func(line string) string {
			if !strings.Contains(line, "--addr") {
				line = strings.TrimSuffix(strings.TrimSpace(line), "&") + " --addr 127.0.0.1:7070 &"
			}
			return line
		})
		script = selfServeRe.ReplaceAllString(script, fmt.Sprintf(
			"$1\nfor _ in $(seq 600); do curl -s -o /dev/null 127.0.0.1:%d/healthz && break; sleep 0.1; done", p.port))
	} else if addrRe.MatchString(script) && p.server == nil && !p.selfServed {
		p.server = startServer(t, serveFlags{config: p.config})
		u, err := url.Parse(p.server.url)
		if err != nil {
			t.Fatal(err)
		}
		p.port, _ = strconv.Atoi(u.Port())
	}
	script = addrRe.ReplaceAllString(script, fmt.Sprintf("127.0.0.1:%d", p.port))

	if b.Stream {
		p.runStream(b, seg, script)
		return
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		env := fmt.Sprintf("export CUPID_DOCTEST_TARGET=http://127.0.0.1:%d\n", p.port)
		stdout, stderr, rc := p.sh.run(t, b.Where(seg.Line), env+script)
		var diffs []string
		outputs, isJSON := doctest.Outputs(stdout)
		switch {
		case rc != 0:
			diffs = append(diffs, fmt.Sprintf("the commands exited with status %d", rc))
		case !isJSON && len(seg.Expect) > 0:
			diffs = append(diffs, "the commands printed something that is not JSON")
		case isJSON:
			diffs = doctest.Compare(seg.Expect, outputs)
		}
		if len(diffs) > 0 && b.Retry && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		if len(diffs) > 0 {
			p.fatalf("%s: the example differs from what it printed:\n  %s\n--- the commands\n%s\n--- printed\n%s\n--- errors\n%s",
				b.Where(seg.Line), strings.Join(diffs, "\n  "), script, stdout, stderr)
		}
		if testing.Verbose() {
			t.Logf("%s: ran, %d outputs\n%s", b.Where(seg.Line), len(outputs), stderr)
		}
		p.bind(outputs)
		return
	}
}

// runStream runs a segment whose output stays open (a watch) in the
// background, in its own process group, reads what it prints until the
// outputs the page shows have come (within 30 s), then stops it.
func (p *docPage) runStream(b doctest.Block, seg doctest.Segment, script string) {
	t := p.t
	where := b.Where(seg.Line)
	out := filepath.Join(p.sh.dir, fmt.Sprintf(".doctest-stream-%d", seg.Line))
	start := fmt.Sprintf("set -m\n(\n%s\n) >%q 2>%q </dev/null &\nDOCTEST_STREAM=$!\nset +m", script, out+".out", out+".err")
	if _, stderr, rc := p.sh.run(t, where, start); rc != 0 {
		t.Fatalf("%s: the stream did not start: %s", where, stderr)
	}
	defer p.sh.run(t, where, `kill -- -$DOCTEST_STREAM 2>/dev/null; wait $DOCTEST_STREAM 2>/dev/null; true`)
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, _ := os.ReadFile(out + ".out")
		outputs, isJSON := doctest.Outputs(string(data))
		diffs := []string{"what it printed so far is not JSON"}
		if isJSON {
			diffs = doctest.Compare(seg.Expect, outputs)
		}
		if len(diffs) == 0 {
			p.bind(outputs)
			return
		}
		if time.Now().After(deadline) {
			errs, _ := os.ReadFile(out + ".err")
			p.fatalf("%s: the stream did not print what the page shows within 30 s:\n  %s\n--- the commands\n%s\n--- printed\n%s\n--- errors\n%s",
				where, strings.Join(diffs, "\n  "), script, data, errs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// bind gives each placeholder not yet bound the value at its path in the
// first output that has one.
func (p *docPage) bind(outputs []any) {
	for _, l := range p.lets {
		if _, ok := p.bound[l.Name]; ok {
			continue
		}
		for _, o := range outputs {
			if v, ok := doctest.Lookup(o, l.Path); ok {
				p.bound[l.Name] = v
				break
			}
		}
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// pageDir is a page's working directory: links to the repository's files
// and directories, so the examples read docs/examples/… and write their
// own files beside them without touching the repository.
func pageDir(t *testing.T, root string) string {
	dir := t.TempDir()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") || e.Name() == "cupid-data" {
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// shimDir holds the commands the examples call that the harness provides:
// cupid (this binary) and websocat.
func shimDir(t *testing.T) string {
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for name, mode := range map[string]string{"cupid": "argv", "websocat": "websocat"} {
		script := fmt.Sprintf("#!/bin/sh\nCUPID_EXEC=%s exec %q \"$@\"\n", mode, self)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// docTarget points a documentation example's "cupid load", which on a
// reader's machine drives the server on 127.0.0.1:7070 by default, at the
// page's server (CUPID_DOCTEST_TARGET, set by the harness).
func docTarget(args []string) []string {
	target := os.Getenv("CUPID_DOCTEST_TARGET")
	if target == "" || len(args) == 0 || args[0] != "load" {
		return args
	}
	for _, a := range args {
		if a == "--target" || strings.HasPrefix(a, "--target=") {
			return args
		}
	}
	return append(args, "--target", target)
}

// websocatMain is the websocat stand-in: it prints each message of the
// WebSocket at the URL its arguments name, one a line, until the server
// closes it.
func websocatMain(args []string) int {
	var target string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			target = a
		}
	}
	if target == "" {
		fmt.Fprintln(os.Stderr, "websocat: which URL?")
		return 2
	}
	conn, _, err := websocket.Dial(context.Background(), target, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "websocat:", err)
		return 1
	}
	conn.SetReadLimit(-1)
	for {
		_, msg, err := conn.Read(context.Background())
		if err != nil {
			if websocket.CloseStatus(err) == websocket.StatusNormalClosure || errors.Is(err, io.EOF) {
				return 0
			}
			fmt.Fprintln(os.Stderr, "websocat:", err)
			return 1
		}
		fmt.Println(string(msg))
	}
}

// docShell is one bash that runs a page's blocks in turn.
type docShell struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	dir    string
	n      int
	mu     sync.Mutex
	stderr strings.Builder
}

func startDocShell(t *testing.T, dir, bin string) *docShell {
	t.Helper()
	s := &docShell{lines: make(chan string, 1024), dir: dir}
	s.cmd = exec.Command("bash", "--noprofile", "--norc")
	s.cmd.Dir = dir
	s.cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var err error
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			s.lines <- sc.Text()
		}
		close(s.lines)
	}()
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			s.mu.Lock()
			s.stderr.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
		}
	}()
	t.Cleanup(s.close)
	return s
}

var markerRe = regexp.MustCompile(`^@@doctest (\d+) (\d+)@@$`)

// run runs a script in the page's bash (its standard input is /dev/null,
// so a command reading it does not eat the script) and returns what it
// printed and its exit status: that of a command that failed, or of the
// last. A script that never finishes fails the
// test after two minutes, not the whole run.
func (s *docShell) run(t *testing.T, where, script string) (stdout, stderr string, rc int) {
	t.Helper()
	s.n++
	file := filepath.Join(s.dir, fmt.Sprintf(".doctest-%d.sh", s.n))
	if err := os.WriteFile(file, []byte(script+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.stderr.Reset()
	s.mu.Unlock()
	// The ERR trap keeps the status of any command of the script that
	// failed, not only the last one's.
	fmt.Fprintf(s.stdin, "doctest_rc=0; trap 'doctest_rc=$?' ERR\nsource %q </dev/null\n"+
		"doctest_last=$?; trap - ERR; [ $doctest_rc -ne 0 ] || doctest_rc=$doctest_last\n"+
		"printf '\\n@@doctest %d %%s@@\\n' \"$doctest_rc\"\n", file, s.n)
	var out []string
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				t.Fatalf("%s: the shell ended: %s", where, s.errors())
			}
			if m := markerRe.FindStringSubmatch(line); m != nil && m[1] == strconv.Itoa(s.n) {
				rc, _ = strconv.Atoi(m[2])
				return strings.Join(out, "\n"), s.errors(), rc
			}
			out = append(out, line)
		case <-timeout:
			s.close()
			t.Fatalf("%s: the example did not finish within 2 minutes; it printed:\n%s\n%s", where, strings.Join(out, "\n"), s.errors())
		}
	}
}

func (s *docShell) errors() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// close stops what the page's examples left running in the background,
// then the shell.
func (s *docShell) close() {
	if s.cmd.Process == nil || s.cmd.ProcessState != nil {
		return
	}
	fmt.Fprintln(s.stdin, `kill $(jobs -p) 2>/dev/null; wait; exit 0`)
	s.stdin.Close()
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}
