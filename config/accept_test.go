package config

import (
	"strings"
	"testing"
	"time"
)

func TestAcceptanceSettings(t *testing.T) {
	cfg, err := ParseConfig([]byte("queues:\n  - {name: d, acceptance: {timeout: 20s, on_decline: requeue_last}, ruleset: "+duelRuleset+"}\n"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if a := cfg.Queues[0].Acceptance; a == nil || time.Duration(a.Timeout) != 20*time.Second || a.OnDecline != "requeue_last" {
		t.Fatalf("acceptance %+v", a)
	}
	for _, c := range []struct{ yaml, field, says string }{
		{"acceptance: {on_decline: cancel}", "queues[0].acceptance.timeout", "must be positive"},
		{"acceptance: {timeout: -5s}", "queues[0].acceptance.timeout", "must be positive"},
		{"acceptance: {timeout: 20s, on_decline: shrug}", "queues[0].acceptance.on_decline", "cancel or requeue_last"},
		{"acceptance: {timeout: 20s, on_timeout: cancel}", "queues[0].acceptance.on_timeout", ""},
	} {
		_, err := ParseConfig([]byte("queues:\n  - {name: d, "+c.yaml+", ruleset: "+duelRuleset+"}\n"), t.TempDir())
		if err == nil || !strings.Contains(err.Error(), c.field) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want %s: …%s…", c.yaml, err, c.field, c.says)
		}
	}
}
