package main

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cupid-match/cupid/config"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/opponent"
	"github.com/cupid-match/cupid/service/opponentsvc"
	"github.com/cupid-match/cupid/service/pairingsvc"
)

// wiredYAML sets every setting that wire.go carries to a value other than
// its default.
const wiredYAML = `
opponents:
  - name: arena
    seed: 7
    store_players: false
    player_table: shared
    player_cache_size: 1000
    min_mmr: 0
    max_mmr: 3000
    mmr_bucket_count: 30
    max_candidates: 5
    fake_opponents: {enabled: true, mmr_jitter: 10}
  - name: stored
    player_cache_size: 10
    min_mmr: 0
    max_mmr: 1
    mmr_bucket_count: 1
pairing:
  max_events: 3
  max_participants: 30
  defaults: {round: 7m, countdown: 4s, min_lobby: 6}
`

// TestWireCarriesEverySetting: each setting of the file reaches the
// service's values, and every field of those values is filled from the
// file, so no setting is parsed and then dropped on the way.
func TestWireCarriesEverySetting(t *testing.T) {
	cfg, err := config.ParseConfig([]byte(wiredYAML), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fs := opponentFinders(cfg)
	if len(fs) != 2 {
		t.Fatalf("finders = %+v", fs)
	}
	a := fs[0]
	if a.Name != "arena" || a.Seed != 7 || a.PlayerTable != "shared" || !a.MemoryOnly ||
		!reflect.DeepEqual(a.Opponent, cfg.Opponents[0].Finder) || a.Opponent.MaxCandidates != 5 || a.Opponent.FakeOpponents.MMRJitter != 10 {
		t.Fatalf("arena = %+v", a)
	}
	if b := fs[1]; b.MemoryOnly || b.PlayerTable != "" || b.Seed != 0 {
		t.Fatalf("stored = %+v: absent settings must stay at the service's defaults", b)
	}
	allSet(t, "opponentsvc.Finder", reflect.ValueOf(a))

	l := pairingLimits(cfg)
	want := pairingsvc.Limits{MaxEvents: 3, MaxParticipants: 30,
		Defaults: pairingsvc.Defaults{Round: 7 * time.Minute, Countdown: 4 * time.Second, MinLobby: 6}}
	if l != want {
		t.Fatalf("limits = %+v, want %+v", l, want)
	}
	allSet(t, "pairingsvc.Limits", reflect.ValueOf(l))

	// The values build running services.
	if _, err := opponentsvc.New(opponentsvc.Options{Docs: memstore.New(), Finders: fs}); err != nil {
		t.Fatal(err)
	}
	if _, err := pairingsvc.New(pairingsvc.Options{Docs: memstore.New(), Limits: l}); err != nil {
		t.Fatal(err)
	}
}

// allSet fails for every top-level field of a struct (and of the structs in
// it) left at its zero value: a field wire.go does not fill.
func allSet(t *testing.T, name string, v reflect.Value) {
	t.Helper()
	for i := range v.NumField() {
		f, ft := v.Field(i), v.Type().Field(i)
		switch {
		case ft.Type == reflect.TypeFor[opponent.Config]():
			// Carried whole (checked with DeepEqual above).
		case f.Kind() == reflect.Struct:
			allSet(t, name+"."+ft.Name, f)
		case f.IsZero():
			t.Errorf("%s.%s is not filled from the configuration", name, ft.Name)
		}
	}
}

var yamlBlock = regexp.MustCompile("(?ms)^```yaml\n(.*?)^```")

// TestDocsExamplesRun: every configuration example of docs/opponents.md and
// docs/pairing.md, and the demo, builds running services through wire.go.
// The pairing example lists the defaults, so it must wire to exactly the
// service's defaults.
func TestDocsExamplesRun(t *testing.T) {
	run := func(where string, cfg *config.Config) {
		t.Helper()
		s, err := opponentsvc.New(opponentsvc.Options{Docs: memstore.New(), Finders: opponentFinders(cfg)})
		if err != nil {
			t.Fatalf("%s: opponent service: %v", where, err)
		}
		if got := len(s.Finders()); got != len(cfg.Opponents) {
			t.Fatalf("%s: %d finders run, %d configured", where, got, len(cfg.Opponents))
		}
		if _, err := pairingsvc.New(pairingsvc.Options{Docs: memstore.New(), Limits: pairingLimits(cfg)}); err != nil {
			t.Fatalf("%s: pairing service: %v", where, err)
		}
	}
	demo, err := config.DemoConfig()
	if err != nil {
		t.Fatal(err)
	}
	run("demo", demo)

	const queue = "queues:\n  - {name: duel, ruleset: {alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}}}\n"
	for _, path := range []string{"../../docs/opponents.md", "../../docs/pairing.md"} {
		doc, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		blocks := yamlBlock.FindAllSubmatch(doc, -1)
		if len(blocks) == 0 {
			t.Fatalf("%s: no yaml blocks", path)
		}
		for i, b := range blocks {
			text := string(b[1])
			if !strings.Contains(text, "opponents:") {
				text += queue
			}
			cfg, err := config.ParseConfig([]byte(text), t.TempDir())
			if err != nil {
				t.Fatalf("%s, yaml block %d: %v", path, i+1, err)
			}
			run(path, cfg)
			if strings.Contains(text, "pairing:") {
				got, err := pairingLimits(cfg).WithDefaults()
				want, _ := pairingsvc.Limits{}.WithDefaults()
				if err != nil || got != want {
					t.Fatalf("%s: the documented pairing section wires to %+v, %v; the defaults are %+v", path, got, err, want)
				}
			}
		}
	}
}
