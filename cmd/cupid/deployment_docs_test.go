package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// shellCommands returns the commands of a markdown file's sh blocks, with
// continued lines joined and comments dropped.
func shellCommands(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, block := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(string(data), -1) {
		text := strings.ReplaceAll(block[1], "\\\n", " ")
		for _, line := range strings.Split(text, "\n") {
			if i := strings.Index(line, " #"); i >= 0 {
				line = line[:i]
			}
			line = strings.TrimSuffix(strings.TrimSpace(line), "&")
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				out = append(out, line)
			}
		}
	}
	return out
}

// cupidArgs is the cupid command line of a documented command: the words
// after "cupid", or after the image of a docker run.
func cupidArgs(line string) ([]string, bool) {
	words := strings.Fields(line)
	switch {
	case len(words) > 0 && words[0] == "cupid":
		return words[1:], true
	case len(words) > 1 && words[0] == "docker" && words[1] == "run":
		for i := 2; i < len(words); i++ {
			switch w := words[i]; {
			case w == "-p" || w == "-v" || w == "-e" || w == "--name":
				i++ // its value
			case strings.HasPrefix(w, "-"):
			default: // the image; the rest is cupid's
				return words[i+1:], true
			}
		}
	}
	return nil, false
}

// TestDeploymentDocsCommands: every cupid command line of
// docs/deployment.md, typed as is or given to the image with docker run,
// is a command the real CLI has, with flags it takes. (The image's own
// command line runs in TestDockerImageStartsSafe, the compose file in
// TestComposeFile, the Helm commands in deploy/helm's test.)
func TestDeploymentDocsCommands(t *testing.T) {
	n := 0
	for _, line := range shellCommands(t, "../../docs/deployment.md") {
		args, ok := cupidArgs(line)
		if !ok {
			continue
		}
		n++
		if len(args) == 0 {
			continue // docker run with the image's own command
		}
		root := rootCmd()
		cmd, rest, err := root.Find(args)
		if err != nil || cmd == root {
			t.Errorf("%s: not a cupid command: %v", line, err)
			continue
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Errorf("%s: %v", line, err)
		}
	}
	if n < 5 {
		t.Fatalf("found %d cupid command lines in docs/deployment.md; the pattern no longer finds them", n)
	}
}
