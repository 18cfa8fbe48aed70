package doctest

import (
	"fmt"
	"strings"
)

// Segment is a run of a shell block's lines up to and including the
// outputs the page shows after them: what a reader types, then what he
// should see.
type Segment struct {
	// Line is the page line of the segment's first line.
	Line   int
	Script string
	Expect []Expectation
}

// Expectation is one output the page shows, as a pattern.
type Expectation struct {
	Line    int
	Text    string
	Pattern Pattern
}

// Segments cuts a shell block after each shown output. A "# {" or "# ["
// comment starts an output; it goes on over the next comment lines until
// its value closes; what follows the value on its last line is prose.
func (b Block) Segments() ([]Segment, error) {
	var out []Segment
	var cur Segment
	var script []string
	flush := func() {
		cur.Script = strings.Join(script, "\n")
		if strings.TrimSpace(cur.Script) != "" || len(cur.Expect) > 0 {
			out = append(out, cur)
		}
		cur, script = Segment{}, nil
	}
	for i := 0; i < len(b.Lines); i++ {
		lineNo := b.Line + 1 + i
		text, ok := outputStart(b.Lines[i])
		if !ok {
			if len(cur.Expect) > 0 && strings.TrimSpace(b.Lines[i]) != "" {
				flush()
			}
			if cur.Line == 0 {
				cur.Line = lineNo
			}
			script = append(script, b.Lines[i])
			continue
		}
		start := lineNo
		for {
			pat, _, err := ParsePattern(text)
			if err == nil {
				if cur.Line == 0 {
					cur.Line = start
				}
				cur.Expect = append(cur.Expect, Expectation{Line: start, Text: text, Pattern: pat})
				break
			}
			if err != errIncomplete {
				return nil, fmt.Errorf("%s: the output shown is not JSON with … for what varies: %v", b.Where(start), err)
			}
			if i+1 >= len(b.Lines) || !strings.HasPrefix(strings.TrimSpace(b.Lines[i+1]), "#") {
				return nil, fmt.Errorf("%s: the output shown is not closed", b.Where(start))
			}
			i++
			text += " " + strings.TrimPrefix(strings.TrimSpace(b.Lines[i]), "#")
		}
	}
	flush()
	return out, nil
}

// outputStart says whether a line starts a shown output, and returns the
// text after the "#".
func outputStart(line string) (string, bool) {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "#") {
		return "", false
	}
	t = strings.TrimSpace(t[1:])
	if strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		return t, true
	}
	return "", false
}
