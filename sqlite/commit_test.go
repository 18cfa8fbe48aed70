package sqlite

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// TestPlayersOf holds the scan of playersOf to encoding/json's reading of
// the same bodies: stored ones, and documents the scan hands over.
func TestPlayersOf(t *testing.T) {
	tk := &cupid.Ticket{
		ID: "t}1", Key: cupid.QueueKey{Queue: `q"[`, Version: "v1"}, RequestID: `r\"`,
		CreatedAt: t0, ExpiresAt: t0.Add(time.Hour), State: cupid.StateWaiting, Latencies: map[string]int32{"eu": 20, "us": -3},
		Attributes: cupid.NewAttributes(map[string]cupid.Value{"mode": cupid.String(`{"players":[{"id":"x"}]}`)}),
		Players: []cupid.Player{
			{ID: "p1", Attributes: cupid.NewAttributes(map[string]cupid.Value{"mmr": cupid.Number(1.5e3), "ok": cupid.Bool(true), "roles": cupid.Strings("tank", `]"}`)})},
			{ID: "é2 ☃"},
		},
	}
	stored, err := json.Marshal(tk)
	if err != nil {
		t.Fatal(err)
	}
	fromUnmarshal := func(body []byte) ([]string, error) {
		var b struct {
			Players []struct {
				ID string `json:"id"`
			} `json:"players"`
		}
		if err := json.Unmarshal(body, &b); err != nil {
			return nil, err
		}
		out := make([]string, len(b.Players))
		for i, p := range b.Players {
			out[i] = p.ID
		}
		return out, nil
	}
	for _, c := range []struct {
		body string
		skim bool // the scan answers without encoding/json
	}{
		{string(stored), true},
		{`{}`, true},
		{` { "players" : [ ] } `, true},
		{`{"players":[{}]}`, true},
		{`{"a":null,"b":-1.5e3,"c":[[],{}],"players":[{"x":"\"}","id":"p"}],"d":true}`, true},
		{`{"players":[{"id":"a"}],"players":[{"id":"b"}]}`, true},
		{`{"players":null}`, false},
		{`{"Players":[{"id":"a"}]}`, false},
		{`{"players":[{"ID":"a"}]}`, false},
		{`{"players":[{"id":"a\u0062"}]}`, false},
		{`{"pl\u0061yers":[{"id":"a"}]}`, false},
		{"{\"players\":[{\"id\":\"a\xff\"}]}", false},
		{`{"players":[{"id":"a"}]`, false},
		{`{"players":[{"id":"a"}]} x`, false},
		{`{"players":[{"id":1}]}`, false},
		{`[]`, false},
		{``, false},
	} {
		want, wantErr := fromUnmarshal([]byte(c.body))
		_, skimmed := skimPlayers([]byte(c.body))
		got, err := playersOf([]byte(c.body))
		if skimmed != c.skim || (err == nil) != (wantErr == nil) || !slices.Equal(got, want) || (err == nil && got == nil) {
			t.Errorf("%s: skimmed %v, players %q (err %v); encoding/json %q (err %v)", c.body, skimmed, got, err, want, wantErr)
		}
	}
	if got, _ := skimPlayers(stored); !slices.Equal(got, []string{"p1", "é2 ☃"}) {
		t.Errorf("stored body: players %q", got)
	}
}
