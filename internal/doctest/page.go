// Package doctest reads the shell examples of Markdown pages so that a test
// can run them as a reader would, in the order the reader meets them, and
// compare what they print with what the page shows.
//
// A page marks what the harness cannot guess with one-line HTML comments,
// invisible on the rendered page, placed just before a fenced block:
//
//	<!-- doctest: config=docs/examples/ratings.yaml -->   the server for this block and the page's next ones
//	<!-- doctest: config=demo -->                         a fresh server on the built-in demo configuration
//	<!-- doctest: config -->                              (before a yaml block) this block is that configuration
//	<!-- doctest: skip (why) -->                          not run; the reason is required
//	<!-- doctest: let <match id> = matches.0.match.id --> bind a placeholder from the first output that has it
//	<!-- doctest: retry -->                               read-only commands, run again until their output is shown
//	<!-- doctest: stream -->                              a stream that stays open: read until the outputs shown came, then stopped
//	<!-- doctest: rewrite "--seed 2" => "--seed 2 --players 400" -->  a change to the command, made visible on the page
//
// A comment line "# {…}" or "# […]" after a command is the output it
// prints; Expect describes how it is compared. Every other comment is prose.
//
// The package does no I/O: it parses text the caller read.
package doctest

import (
	"fmt"
	"regexp"
	"strings"
)

// Page is one Markdown file's fenced blocks, with their directives.
type Page struct {
	Path   string
	Blocks []Block
}

// Block is one fenced code block and the directives written before it.
type Block struct {
	Page string
	// Line is the 1-based line of the opening fence.
	Line int
	Lang string
	// Lines are the block's text; Lines[i] is on page line Line+1+i.
	Lines []string

	// Skip, when not empty, is why the block is not run.
	Skip string
	// Config is the server configuration from this block on: a path
	// relative to the repository, or "demo" for the built-in one.
	Config string
	// IsConfig marks a yaml block that is itself the configuration.
	IsConfig bool
	Lets     []Let
	Retry    bool
	// Stream marks commands whose output stays open (a watch): they are
	// read until the outputs shown have come, then stopped.
	Stream   bool
	Rewrites []Rewrite
}

// Let binds Name, a placeholder such as "<match id>", to the value at Path
// (dot-separated keys and array indexes) in the first output that has one.
type Let struct {
	Name, Path string
}

// Rewrite replaces Old with New in the block's commands before they run.
type Rewrite struct {
	Old, New string
}

// Runnable says whether the harness runs the block: a shell block not
// skipped.
func (b Block) Runnable() bool {
	return (b.Lang == "sh" || b.Lang == "bash") && b.Skip == ""
}

// Where names a line of the block's page for a failure message.
func (b Block) Where(line int) string {
	return fmt.Sprintf("%s:%d", b.Page, line)
}

var (
	directiveRe = regexp.MustCompile(`^<!--\s*doctest:\s*(.*?)\s*-->\s*$`)
	fenceRe     = regexp.MustCompile("^```([a-z]*)\\s*$")
	skipRe      = regexp.MustCompile(`^skip\s*\((.+)\)$`)
	configRe    = regexp.MustCompile(`^config\s*=\s*(\S+)$`)
	letRe       = regexp.MustCompile(`^let\s+(<[^<>]+>)\s*=\s*([\w.]+)$`)
	rewriteRe   = regexp.MustCompile(`^rewrite\s+"((?:[^"\\]|\\.)+)"\s*=>\s*"((?:[^"\\]|\\.)*)"$`)
)

// Parse reads a page. A directive it does not understand, one that no
// block follows, or a fence left open is an error naming the line, so a
// typo in a directive never turns into a block silently skipped.
func Parse(path string, text string) (*Page, error) {
	p := &Page{Path: path}
	lines := strings.Split(text, "\n")
	var pending Block
	pendingAt := 0
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if m := directiveRe.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			if err := pending.apply(m[1]); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, i+1, err)
			}
			if pendingAt == 0 {
				pendingAt = i + 1
			}
			continue
		}
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "<!--") && strings.Contains(t, "doctest:") {
			return nil, fmt.Errorf("%s:%d: a doctest directive must be alone on its line as <!-- doctest: … -->", path, i+1)
		}
		m := fenceRe.FindStringSubmatch(line)
		if m == nil {
			if pendingAt != 0 && strings.TrimSpace(line) != "" {
				return nil, fmt.Errorf("%s:%d: the doctest directive is not followed by a code block", path, pendingAt)
			}
			continue
		}
		b := pending
		pending, pendingAt = Block{}, 0
		b.Page, b.Line, b.Lang = path, i+1, m[1]
		closed := false
		for i++; i < len(lines); i++ {
			if strings.TrimRight(lines[i], " ") == "```" {
				closed = true
				break
			}
			b.Lines = append(b.Lines, lines[i])
		}
		if !closed {
			return nil, fmt.Errorf("%s:%d: the code block is never closed", path, b.Line)
		}
		if b.IsConfig && b.Lang != "yaml" {
			return nil, fmt.Errorf("%s:%d: doctest: config (without a file) marks a yaml block; this one is %q", path, b.Line, b.Lang)
		}
		p.Blocks = append(p.Blocks, b)
	}
	if pendingAt != 0 {
		return nil, fmt.Errorf("%s:%d: the doctest directive is not followed by a code block", path, pendingAt)
	}
	return p, nil
}

// apply records one directive on the block it comes before.
func (b *Block) apply(d string) error {
	switch {
	case skipRe.MatchString(d):
		b.Skip = strings.TrimSpace(skipRe.FindStringSubmatch(d)[1])
	case d == "skip":
		return fmt.Errorf("doctest: skip needs its reason: skip (why)")
	case d == "config":
		b.IsConfig = true
	case configRe.MatchString(d):
		b.Config = configRe.FindStringSubmatch(d)[1]
	case letRe.MatchString(d):
		m := letRe.FindStringSubmatch(d)
		b.Lets = append(b.Lets, Let{Name: m[1], Path: m[2]})
	case d == "retry":
		b.Retry = true
	case d == "stream":
		b.Stream = true
	case rewriteRe.MatchString(d):
		m := rewriteRe.FindStringSubmatch(d)
		b.Rewrites = append(b.Rewrites, Rewrite{Old: unescape(m[1]), New: unescape(m[2])})
	default:
		return fmt.Errorf("doctest: %q is not a directive (skip (why), config=FILE, config, let <name> = path, retry, stream, rewrite \"a\" => \"b\")", d)
	}
	return nil
}

func unescape(s string) string {
	return strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(s)
}
