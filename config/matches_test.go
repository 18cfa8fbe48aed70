package config

import (
	"strings"
	"testing"
)

func TestHandoffSettingsRefused(t *testing.T) {
	for _, c := range []struct{ yaml, field, says string }{
		{"assign_timeout: -5s", "queues[0].assign_timeout", "must not be negative"},
		{"assign_timeout: 30s, on_assign_timeout: later", "queues[0].on_assign_timeout", "requeue or cancel"},
		{"on_assign_timeout: cancel", "queues[0].on_assign_timeout", "needs an assign_timeout"},
		{"leaver_window: -1s", "queues[0].leaver_window", "must not be negative"},
	} {
		_, err := ParseConfig([]byte("queues:\n  - {name: d, "+c.yaml+", ruleset: "+duelRuleset+"}\n"), t.TempDir())
		if err == nil || !strings.Contains(err.Error(), c.field) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want %s: …%s…", c.yaml, err, c.field, c.says)
		}
	}
}
