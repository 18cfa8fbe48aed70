package ticketsvc

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/cupid-match/cupid/memstore"
)

// TestBackfillSettingsAreSaidToBeUnused: a ruleset with AccelByte's backfill
// settings is accepted, and the log says they are not acted on; one
// without them says nothing.
func TestBackfillSettingsAreSaidToBeUnused(t *testing.T) {
	for _, tc := range []struct {
		rules string
		want  []string
	}{
		{`{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1}, "auto_backfill": true, "match_options_referred_for_backfill": true}`,
			[]string{"not acted on", "auto_backfill", "match_options_referred_for_backfill"}},
		{`{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1}}`, nil},
	} {
		var buf bytes.Buffer
		store := memstore.New()
		_, err := New(Options{Store: store, Documents: store, Logger: slog.New(slog.NewTextHandler(&buf, nil)),
			Queues: []Queue{{Name: "q", TTL: time.Minute, Ruleset: []byte(tc.rules)}}})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("log %q lacks %q", buf.String(), w)
			}
		}
		if tc.want == nil && strings.Contains(buf.String(), "not acted on") {
			t.Errorf("a ruleset without backfill settings logged %q", buf.String())
		}
	}
}
