package ruleset

import (
	"strings"
	"testing"
	"time"
)

// TestPlayerIDsDisableAfter: a "player_ids" rule may stop applying after a
// wait (the encounter history's "not with anyone I met lately"); its
// block-list form is marked for the engine's native judgement; other
// operations refuse disable_after, naming it.
func TestPlayerIDsDisableAfter(t *testing.T) {
	const head = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1}, "collection_rule": [`
	c, err := Load([]byte(head + `{"attribute": "met", "operation": "player_ids", "max_count": 0, "disable_after": 30}]}`))
	if err != nil {
		t.Fatal(err)
	}
	f := c.Filters[0]
	if f.Excludes != "met" || f.DisableAfter != 30*time.Second {
		t.Errorf("filter: Excludes %q, DisableAfter %v", f.Excludes, f.DisableAfter)
	}
	for _, bad := range []struct{ rule, want string }{
		{`{"attribute": "langs", "operation": "intersection", "disable_after": 30}`, `collection_rule[0].disable_after: applies only to "player_ids"`},
		{`{"attribute": "met", "operation": "player_ids", "max_count": 0, "disable_after": -1}`, "collection_rule[0].disable_after: must be between 0"},
	} {
		_, err := Load([]byte(head + bad.rule + `]}`))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v, want %s", bad.rule, err, bad.want)
		}
	}
}
