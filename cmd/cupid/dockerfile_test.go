package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// dockerfile is what the image's final stage says about running it.
type dockerfile struct {
	entrypoint, cmd, healthcheck []string
	env                          []string // KEY=value
	expose                       string
	volume                       string
	buildLdflags                 string // the -ldflags of the build stage's go build
	args                         map[string]bool
}

// parseDockerfile reads the instructions this test needs: the exec
// (JSON) forms of ENTRYPOINT, CMD and HEALTHCHECK's CMD, ENV, EXPOSE,
// VOLUME of the last stage, and the build's -ldflags and ARGs.
func parseDockerfile(t *testing.T, path string) dockerfile {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(data), "\\\n", " ")
	d := dockerfile{args: map[string]bool{}}
	exec := func(what, s string) []string {
		var out []string
		if err := json.Unmarshal([]byte(strings.TrimSpace(s)), &out); err != nil {
			t.Fatalf("Dockerfile: %s is not in the exec (JSON) form the image needs without a shell: %s", what, s)
		}
		return out
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		word, rest, _ := strings.Cut(line, " ")
		switch strings.ToUpper(word) {
		case "FROM":
			// A new stage: only the last one's settings are the image's.
			d.entrypoint, d.cmd, d.healthcheck, d.env, d.expose, d.volume = nil, nil, nil, nil, "", ""
		case "ENTRYPOINT":
			d.entrypoint = exec("ENTRYPOINT", rest)
		case "CMD":
			d.cmd = exec("CMD", rest)
		case "HEALTHCHECK":
			_, c, ok := strings.Cut(rest, "CMD ")
			if !ok {
				t.Fatalf("Dockerfile: HEALTHCHECK without CMD: %s", line)
			}
			d.healthcheck = exec("HEALTHCHECK", c)
		case "ENV":
			for _, kv := range strings.Fields(rest) {
				d.env = append(d.env, kv)
			}
		case "EXPOSE":
			d.expose = strings.TrimSpace(rest)
		case "VOLUME":
			v := exec("VOLUME", rest)
			d.volume = v[0]
		case "ARG":
			name, _, _ := strings.Cut(strings.TrimSpace(rest), "=")
			d.args[name] = true
		case "RUN":
			if m := regexp.MustCompile(`go build .*-ldflags "([^"]*)"`).FindStringSubmatch(rest); m != nil {
				d.buildLdflags = m[1]
			}
		}
	}
	return d
}

// TestDockerImageStartsSafe runs the image's exact command line and
// environment against this binary, with a temporary directory for the
// data volume: the server starts, prints a new key once, answers health
// checks, refuses calls without the key and takes them with it; a second
// start keeps the key and prints nothing. Docker itself cannot run here;
// only the paths are mapped (the volume to a temporary directory, the
// port to a free one on 127.0.0.1).
func TestDockerImageStartsSafe(t *testing.T) {
	d := parseDockerfile(t, "../../Dockerfile")
	if len(d.entrypoint) != 1 || d.entrypoint[0] != "/usr/local/bin/cupid" || len(d.cmd) == 0 || d.cmd[0] != "serve" {
		t.Fatalf("ENTRYPOINT %q CMD %q: want the binary, then serve", d.entrypoint, d.cmd)
	}
	// The version is stamped into the variable cupid version prints.
	if !strings.Contains(d.buildLdflags, "-X main.version=${VERSION}") || !d.args["VERSION"] {
		t.Errorf("the build does not stamp ARG VERSION into main.version: -ldflags %q", d.buildLdflags)
	}
	addr := flagValue(d.cmd, "--addr")
	if addr != ":"+d.expose || isLoopback(addr) {
		t.Fatalf("--addr %q: the image must listen on every interface at the port it exposes (%s)", addr, d.expose)
	}
	if d.volume == "" || flagValue(d.cmd, "--data") != d.volume {
		t.Errorf("--data %q is not the image's volume %q", flagValue(d.cmd, "--data"), d.volume)
	}

	volume := t.TempDir()
	mapArgs := func(args []string, port string) []string {
		var out []string
		for _, a := range args {
			switch {
			case a == addr:
				a = "127.0.0.1:" + port
			case a == d.volume || strings.HasPrefix(a, d.volume+"/"):
				a = volume + strings.TrimPrefix(a, d.volume)
			}
			out = append(out, a)
		}
		return out
	}
	env := append(append(os.Environ(), d.env...), "CUPID_EXEC=1")

	first := startImage(t, mapArgs(d.cmd, "0"), env)
	key := first.waitKey(t)
	keys := filepath.Join(volume, "server-keys.yaml")
	saved, err := os.ReadFile(keys)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(saved), key) {
		t.Fatal("the keys file holds the key itself, not only its hash")
	}
	checkImageServer(t, first.url, key)

	// The health check, as the image runs it, says ready (exit 0).
	health := func() error {
		args, _ := json.Marshal(append(d.healthcheck[1:], "--addr", strings.TrimPrefix(first.url, "http://")))
		c := exec.Command(os.Args[0], "-test.run=^$")
		c.Env = append(env, "CUPID_ARGS="+string(args))
		out, err := c.CombinedOutput()
		if err != nil {
			t.Logf("health check: %s", out)
		}
		return err
	}
	if d.healthcheck[0] != d.entrypoint[0] {
		t.Fatalf("HEALTHCHECK runs %q, not the binary", d.healthcheck[0])
	}
	if err := health(); err != nil {
		t.Fatalf("the health check failed on a ready server: %v", err)
	}
	first.stop(t)
	if err := health(); err == nil {
		t.Fatal("the health check passed with the server stopped")
	}

	second := startImage(t, mapArgs(d.cmd, "0"), env)
	checkImageServer(t, second.url, key)
	second.stop(t)
	if out := second.stdout(); strings.Contains(out, "cupid_sk_") {
		t.Fatalf("the second start printed a key again:\n%s", out)
	}
	if again, _ := os.ReadFile(keys); string(again) != string(saved) {
		t.Fatal("the second start rewrote the keys file")
	}
}

// checkImageServer: ready without credentials; the API and /metrics
// refused without the key and served with it.
func checkImageServer(t *testing.T, url, key string) {
	t.Helper()
	get := func(path, key string) int {
		req, _ := http.NewRequest(http.MethodGet, url+path, nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode
	}
	post := func(key string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, url+"/cupid.v1.TicketService/CreateTicket",
			strings.NewReader(`{"queue":"duel","players":[{"id":"alice","attributes":{"mmr":1500}}],"replace":true}`))
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}
	if c := get("/readyz", ""); c != http.StatusOK {
		t.Errorf("/readyz without credentials: %d, want 200", c)
	}
	if c, body := post(""); c != http.StatusUnauthorized || !strings.Contains(body, "unauthenticated") {
		t.Errorf("CreateTicket without a key: %d %s, want 401 unauthenticated", c, body)
	}
	if c, body := post("cupid_sk_" + strings.Repeat("x", 43)); c != http.StatusUnauthorized {
		t.Errorf("CreateTicket with an unknown key: %d %s, want 401", c, body)
	}
	if c, body := post(key); c != http.StatusOK || !strings.Contains(body, "TICKET_STATE_WAITING") {
		t.Errorf("CreateTicket with the printed key: %d %s", c, body)
	}
	if c := get("/metrics", ""); c != http.StatusUnauthorized {
		t.Errorf("/metrics without a key: %d, want 401", c)
	}
	if c := get("/metrics", key); c != http.StatusOK {
		t.Errorf("/metrics with the key: %d, want 200", c)
	}
}

// imageProcess is the binary run with the image's command line.
type imageProcess struct {
	cmd  *exec.Cmd
	url  string
	key  chan string   // the first key printed on standard output
	done chan struct{} // closed when standard output ends
	out  strings.Builder
}

var keyRe = regexp.MustCompile(`cupid_sk_[A-Za-z0-9_-]{43}`)

func startImage(t *testing.T, args []string, env []string) *imageProcess {
	t.Helper()
	js, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(env, "CUPID_ARGS="+string(js))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &imageProcess{cmd: cmd, key: make(chan string, 1), done: make(chan struct{})}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Signal(syscall.SIGKILL)
			p.cmd.Wait()
		}
	})
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.out.WriteString(sc.Text() + "\n")
			if k := keyRe.FindString(sc.Text()); k != "" && len(p.key) == 0 {
				p.key <- k
			}
		}
	}()
	addr := make(chan string, 1)
	go func() {
		// The image logs text (slog's default handler).
		re := regexp.MustCompile(`msg=listening addr=(\S+)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	select {
	case a := <-addr:
		p.url = "http://" + a
	case <-time.After(60 * time.Second):
		t.Fatal("the server did not start listening")
	}
	return p
}

// waitKey returns the key the server printed.
func (p *imageProcess) waitKey(t *testing.T) string {
	t.Helper()
	select {
	case k := <-p.key:
		return k
	case <-p.done:
		t.Fatalf("the server printed no key; standard output:\n%s", p.out.String())
	}
	return ""
}

// stdout is all the process printed; call it after stop.
func (p *imageProcess) stdout() string {
	<-p.done
	return p.out.String()
}

// stop ends the server as docker stop does (SIGTERM) and waits for it.
func (p *imageProcess) stop(t *testing.T) {
	if p.cmd.ProcessState != nil {
		return
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.cmd.Wait(); err != nil && t != nil {
		t.Errorf("the server did not stop cleanly: %v", err)
	}
}

// flagValue returns the value after name in args ("" when absent).
func flagValue(args []string, name string) string {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}
