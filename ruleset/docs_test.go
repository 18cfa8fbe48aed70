package ruleset

import (
	"os"
	"strings"
	"testing"
)

// docBlocks returns the ```json blocks of docs/rulesets.md with the line
// each starts on.
func docBlocks(t *testing.T) (doc string, blocks []string, lines []int) {
	t.Helper()
	data, err := os.ReadFile("../docs/rulesets.md")
	if err != nil {
		t.Fatal(err)
	}
	doc = string(data)
	var cur []string
	in, ticket := false, false
	prev := ""
	for i, line := range strings.Split(doc, "\n") {
		switch {
		case !in && strings.TrimSpace(line) == "```json":
			// A block marked <!-- ticket: … --> is a ticket, run by the
			// engine test it names, not a ruleset.
			in, cur, ticket = true, nil, strings.HasPrefix(strings.TrimSpace(prev), "<!-- ticket:")
			if !ticket {
				lines = append(lines, i+2)
			}
		case in && strings.TrimSpace(line) == "```":
			in = false
			if !ticket {
				blocks = append(blocks, strings.Join(cur, "\n"))
			}
		case in:
			cur = append(cur, line)
		}
		prev = line
	}
	return doc, blocks, lines
}

// TestDocExamples loads every JSON example of docs/rulesets.md, so the
// reference cannot drift from the code.
func TestDocExamples(t *testing.T) {
	_, blocks, lines := docBlocks(t)
	if len(blocks) < 10 {
		t.Fatalf("found %d json blocks in docs/rulesets.md", len(blocks))
	}
	for i, b := range blocks {
		if got := CheckText("docs/rulesets.md block", []byte(b)); got != "" {
			t.Errorf("json block at docs/rulesets.md:%d does not load:\n%s", lines[i], got)
		}
	}
}

// TestDocCoversEveryField: every field name the parser knows appears in the
// reference, written as `name`.
func TestDocCoversEveryField(t *testing.T) {
	doc, _, _ := docBlocks(t)
	lists := [][]string{
		rulesetKeys, allianceKeys, allianceFlexKeys, matchingRuleKeys, flexingRuleKeys, comparisonKeys,
		collectionKeys, teamRuleKeys, matchTotalKeys, exprRuleKeys, qualityKeys, compoundKeys, defaultKeys, ticketQueryKeys,
		{"options", "name", "type", "quotas", "min", "max", "flexing", "accepted_attribute", "current_attribute", "value"},
	}
	for _, list := range lists {
		for _, key := range list {
			if !strings.Contains(doc, "`"+key+"`") && !strings.Contains(doc, "."+key+"`") && !strings.Contains(doc, "."+key+"[]`") {
				t.Errorf("docs/rulesets.md does not mention `%s`", key)
			}
		}
	}
}
