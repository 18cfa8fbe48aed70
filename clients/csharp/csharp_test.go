// Package csharp_test runs the C# client (clients/csharp) against real
// Cupid servers: it builds the cupid binary, starts it twice (the test
// configuration in testdata/, with auth on, and the built-in demo for the
// quick start), compiles the client and its test program with mono's mcs
// at C# 7.2, runs the program with mono and reads its verdict. It skips,
// saying why, when mcs or mono is missing.
package csharp_test

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestCSharpClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server and the C# client, and starts servers")
	}
	for _, tool := range []string{"mcs", "mono"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (apt-get install mono-mcs libmono-system-net-http4.0-cil): %v", tool, err)
		}
	}
	dir := t.TempDir()
	run(t, "go", "build", "-o", filepath.Join(dir, "cupid"), "github.com/cupid-match/cupid/cmd/cupid")
	out := filepath.Join(dir, "cs")
	run(t, "bash", "build.sh", out, "tests")

	key, secret := "cupid_sk_"+random(t, 32), random(t, 48)
	secretFile := filepath.Join(dir, "hs256.secret")
	if err := os.WriteFile(secretFile, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	tmpl, err := os.ReadFile("testdata/cupid.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(key))
	cfg := strings.NewReplacer("KEY_SHA256", hex.EncodeToString(sum[:]), "SECRET_FILE", secretFile).Replace(string(tmpl))
	cfgFile := filepath.Join(dir, "cupid.yaml")
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}

	server := serve(t, filepath.Join(dir, "cupid"), "--data", filepath.Join(dir, "data"), "--config", cfgFile)
	demo := serve(t, filepath.Join(dir, "cupid"), "--data", filepath.Join(dir, "demo"))

	cmd := exec.Command("mono", "--debug", filepath.Join(out, "CupidTests.exe"))
	cmd.Env = append(os.Environ(), "CUPID_URL="+server, "CUPID_DEMO_URL="+demo, "CUPID_KEY="+key, "CUPID_SECRET="+secret)
	output, err := cmd.CombinedOutput()
	t.Logf("the C# tests said:\n%s", output)
	if err != nil {
		t.Fatalf("the C# tests failed: %v", err)
	}
	// Every test passed, and the closing line counts them all: a harness
	// that ran nothing cannot pass.
	oks := regexp.MustCompile(`(?m)^ok   `).FindAll(output, -1)
	m := regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed$`).FindSubmatch(output)
	if m == nil {
		t.Fatal("no closing line \"N passed, M failed\"")
	}
	passed, _ := strconv.Atoi(string(m[1]))
	if string(m[2]) != "0" || passed != len(oks) || passed < 15 {
		t.Fatalf("closing line %q with %d tests ok", m[0], len(oks))
	}
	if !regexp.MustCompile(`(?m)^quick start printed: matched: (alice vs bob|bob vs alice)$`).Match(output) {
		t.Fatal("the quick start did not print alice's match")
	}
}

// run runs a command in the package's directory and fails the test with
// its output when it fails.
func run(t *testing.T, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func random(t *testing.T, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// serve starts `cupid serve` on a port of the system's choosing and returns
// its URL once its log says it listens; the server is stopped when the test
// ends.
func serve(t *testing.T, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--log-format", "json"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logs.Write(sc.Bytes())
			logs.WriteByte('\n')
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
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
		<-ended
		if t.Failed() {
			t.Logf("server %s logged:\n%s", strings.Join(args, " "), logs.String())
		}
	})
	select {
	case a := <-addr:
		return "http://" + a
	case <-ended:
		t.Fatalf("cupid serve %s exited:\n%s", strings.Join(args, " "), logs.String())
	case <-time.After(60 * time.Second):
		t.Fatal("cupid serve did not listen within 60s")
	}
	return ""
}

// TestDocsShowTheExamples checks that the C# section of docs/clients.md
// shows the examples the C# tests run, as they are: every csharp block is
// one of examples/*.cs, and every example is shown.
func TestDocsShowTheExamples(t *testing.T) {
	doc, err := os.ReadFile("../../docs/clients.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(doc)
	start := strings.Index(section, "\n## C# (Unity and .NET)\n")
	if start < 0 {
		t.Fatal(`docs/clients.md has no section "## C# (Unity and .NET)"`)
	}
	section = section[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	files, err := filepath.Glob("examples/*.cs")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	examples := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		examples[string(b)] = f
	}
	shown := map[string]bool{}
	for _, block := range regexp.MustCompile("(?s)```csharp\n(.*?)```").FindAllStringSubmatch(section, -1) {
		f, ok := examples[block[1]]
		if !ok {
			t.Errorf("docs/clients.md shows C# that is no example the tests run:\n%s", block[1])
			continue
		}
		shown[f] = true
	}
	for _, f := range files {
		if !shown[f] {
			t.Errorf("docs/clients.md does not show %s", f)
		}
	}
}
