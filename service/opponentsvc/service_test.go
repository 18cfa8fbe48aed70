package opponentsvc

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/opponent"
)

const arenaKind = PlayerKindPrefix + "arena"

func TestUpdateStoresThenCachesAndQueryFindsTheBest(t *testing.T) {
	docs := newMemDocs()
	s, _ := newService(t, docs, arenaFinder())
	r := mustUpdate(t, s, "arena", defender("near", 1510, "gold", "wolves"))
	if r.Outcome != OutcomeAdded || !r.Stored || r.Inserted != 1 {
		t.Fatalf("update = %+v, want added and stored", r)
	}
	mustUpdate(t, s, "arena", defender("rival", 1590, "gold", "bears"))
	mustUpdate(t, s, "arena", defender("guildmate", 1500, "gold", "cats"))
	mustUpdate(t, s, "arena", defender("silver", 1500, "silver", "bears"))
	if docs.count(arenaKind) != 4 {
		t.Fatalf("player table has %d rows, want 4", docs.count(arenaKind))
	}
	var stored opponent.Model
	json.Unmarshal(docs.docs[arenaKind]["near"], &stored)
	if stored.PlayerID != "near" || len(stored.Entries) != 1 || stored.Entries[0].MMR != 1510 {
		t.Fatalf("stored row = %+v", stored)
	}

	// The rival scores 300-70+100 = 330 over near's 290; the guildmate is
	// filtered out; silver is in another (hard) league.
	q := attacker("me", 1520, "gold", "cats", "bears")
	q.ReturnModel = true
	res := mustFind(t, s, "arena", q)
	if res.Type != opponent.ResultSuccess || res.PlayerID != "rival" || res.Score != 330 {
		t.Fatalf("query = %+v, want SUCCESS rival 330", res)
	}
	if res.Model == nil || res.Model.Entries[0].MMR != 1590 || res.Model.Entries[0].Attributes["guild"].String != "bears" {
		t.Fatalf("model = %+v, want rival's entry", res.Model)
	}
	// Excluding the rival leaves near.
	q.Exclude = []string{"rival"}
	q.ReturnModel = false
	if res := mustFind(t, s, "arena", q); res.PlayerID != "near" || res.Model != nil {
		t.Fatalf("with rival excluded = %+v, want near without a model", res)
	}
	// Nobody in the bronze league.
	if res := mustFind(t, s, "arena", attacker("me", 1520, "bronze", "cats")); res.Type != opponent.ResultNoneFound {
		t.Fatalf("bronze query = %+v, want NONE_FOUND", res)
	}
}

func TestEmptyUpdateMakesThePlayerIneligible(t *testing.T) {
	docs := newMemDocs()
	s, _ := newService(t, docs, arenaFinder())
	mustUpdate(t, s, "arena", defender("gone", 1500, "gold", "wolves"))
	r := mustUpdate(t, s, "arena", opponent.Model{PlayerID: "gone"})
	if r.Outcome != OutcomeRemoved || r.Removed != 1 {
		t.Fatalf("empty update = %+v, want removed", r)
	}
	if docs.has(arenaKind, "gone") {
		t.Fatal("the row is still in the player table")
	}
	if res := mustFind(t, s, "arena", attacker("me", 1500, "gold", "cats")); res.Type != opponent.ResultNoneFound {
		t.Fatalf("query = %+v, want NONE_FOUND", res)
	}
}

func TestBadInputChangesNothing(t *testing.T) {
	docs := newMemDocs()
	s, _ := newService(t, docs, arenaFinder())
	mustUpdate(t, s, "arena", defender("keep", 1500, "gold", "wolves"))
	updates := []struct {
		name   string
		finder string
		m      opponent.Model
		code   cupid.Code
		field  string
	}{
		{"NaN MMR", "arena", defender("keep", math.NaN(), "gold", "wolves"), cupid.CodeInvalid, "entries[0].mmr"},
		{"label of the wrong type", "arena", opponent.Single("keep", 1, map[string]cupid.Value{"league": cupid.Number(1), "guild": cupid.String("x")}), cupid.CodeInvalid, "entries[0].attributes.league"},
		{"missing label", "arena", opponent.Single("keep", 1, nil), cupid.CodeInvalid, "entries[0].attributes.league"},
		{"undeclared attribute", "arena", opponent.Single("keep", 1, map[string]cupid.Value{"league": cupid.String("gold"), "level": cupid.Number(3)}), cupid.CodeInvalid, "entries[0].attributes.level"},
		{"no id", "arena", defender("", 1500, "gold", "x"), cupid.CodeInvalid, "player_id"},
		{"two entries", "arena", opponent.Model{PlayerID: "keep", Entries: []opponent.Entry{{MMR: 1}, {MMR: 2}}}, cupid.CodeInvalid, "entries"},
		{"unknown finder", "nope", defender("keep", 1, "gold", "x"), cupid.CodeNotFound, "finder"},
		{"no finder", "", defender("keep", 1, "gold", "x"), cupid.CodeInvalid, "finder"},
	}
	for _, c := range updates {
		t.Run(c.name, func(t *testing.T) {
			_, err := s.UpdatePlayer(context.Background(), c.finder, c.m)
			wantErr(t, err, c.code, c.field)
		})
	}
	queries := []struct {
		name  string
		q     opponent.Query
		field string
	}{
		{"NaN MMR", opponent.Query{AttackerID: "a", MMR: math.NaN(), Attributes: map[string]cupid.Value{"league": cupid.String("gold")}}, "mmr"},
		{"negative retries", opponent.Query{AttackerID: "a", MMR: 1, Retries: -1, Attributes: map[string]cupid.Value{"league": cupid.String("gold")}}, "retries"},
		{"hard label missing", opponent.Query{AttackerID: "a", MMR: 1}, "attributes.league"},
		{"label of the wrong type", opponent.Query{AttackerID: "a", MMR: 1, Attributes: map[string]cupid.Value{"league": cupid.Number(2)}}, "attributes.league"},
		{"no attacker", opponent.Query{MMR: 1, Attributes: map[string]cupid.Value{"league": cupid.String("gold")}}, "attacker_id"},
	}
	for _, c := range queries {
		t.Run("query "+c.name, func(t *testing.T) {
			_, err := s.FindOpponent(context.Background(), "arena", c.q)
			wantErr(t, err, cupid.CodeInvalid, c.field)
		})
	}
	st := stats(t, s, "arena")
	if st.Entries != 1 || st.Queries != 0 || st.InvalidQueries != uint64(len(queries)) || st.InvalidUpdates != 6 {
		t.Fatalf("stats after bad input = %+v", st)
	}
	var kept opponent.Model
	json.Unmarshal(docs.docs[arenaKind]["keep"], &kept)
	if docs.count(arenaKind) != 1 || kept.Entries[0].MMR != 1500 {
		t.Fatalf("the player table changed: %d rows, keep = %+v", docs.count(arenaKind), kept)
	}
	res := mustFind(t, s, "arena", opponent.Query{AttackerID: "a", MMR: 1500, ReturnModel: true,
		Attributes: map[string]cupid.Value{"league": cupid.String("gold")}})
	if res.PlayerID != "keep" || res.Model.Entries[0].MMR != 1500 {
		t.Fatalf("the cached player changed: %+v", res)
	}
}

func TestFailedStoreWriteChangesNothing(t *testing.T) {
	docs := newMemDocs()
	s, _ := newService(t, docs, arenaFinder())
	mustUpdate(t, s, "arena", defender("keep", 1500, "gold", "wolves"))
	docs.failWrites = true
	_, err := s.UpdatePlayer(context.Background(), "arena", defender("new", 1500, "gold", "wolves"))
	wantErr(t, err, cupid.CodeUnavailable, "")
	_, err = s.UpdatePlayer(context.Background(), "arena", opponent.Model{PlayerID: "keep"})
	wantErr(t, err, cupid.CodeUnavailable, "")
	_, err = s.RemovePlayer(context.Background(), "arena", "keep")
	wantErr(t, err, cupid.CodeUnavailable, "")
	if st := stats(t, s, "arena"); st.Entries != 1 || st.Inserted != 1 {
		t.Fatalf("a failed write changed the cache: %+v", st)
	}
}

func TestUpdatesOnlyModeStoresNothingAndFakesWhenEmpty(t *testing.T) {
	docs := newMemDocs()
	s, _ := newService(t, docs, updatesOnlyFinder())
	q := opponent.Query{AttackerID: "me", MMR: 500, ReturnModel: true}
	res := mustFind(t, s, "battles", q)
	if res.Type != opponent.ResultFakeOpponent || !strings.HasPrefix(res.PlayerID, opponent.FakeIDPrefix) || res.Model == nil {
		t.Fatalf("empty cache = %+v, want a fake opponent with a model", res)
	}
	r := mustUpdate(t, s, "battles", opponent.Single("team-1", 480, nil))
	if r.Stored || r.Outcome != OutcomeAdded {
		t.Fatalf("update = %+v, want added and not stored", r)
	}
	if len(docs.docs) != 0 {
		t.Fatalf("the store holds %v", docs.docs)
	}
	// A real one first; offered, it leaves the cache (threshold always),
	// so the next query gets a fake again.
	if res := mustFind(t, s, "battles", q); res.Type != opponent.ResultSuccess || res.PlayerID != "team-1" || !res.RemovedAfterOffer {
		t.Fatalf("query = %+v, want SUCCESS team-1 removed after the offer", res)
	}
	if res := mustFind(t, s, "battles", q); res.Type != opponent.ResultFakeOpponent {
		t.Fatalf("query = %+v, want FAKE_OPPONENT", res)
	}
	if st := stats(t, s, "battles"); st.ScanEnabled || st.StoresPlayers || st.Fakes != 2 || st.Successes != 1 {
		t.Fatalf("stats = %+v", st)
	}
}

func TestScanRefillsTheCacheAfterARestart(t *testing.T) {
	docs := newMemDocs()
	cfg := arenaFinder()
	before, _ := newService(t, docs, cfg)
	for i := range 10 {
		// One bucket each, so no two players can collide in a slot.
		mustUpdate(t, before, "arena", defender(fmt.Sprintf("p%02d", i), float64(1000+i*100), "gold", "wolves"))
	}
	// The server dies without Close, so no snapshot of its cache is stored:
	// the scan is what brings the players back.

	s, clk := newService(t, docs, cfg)
	if st := stats(t, s, "arena"); st.Entries != 0 {
		t.Fatalf("a new service starts with %d entries", st.Entries)
	}
	// The cache is empty, so the first fetch takes max_fetch (4) rows;
	// the next are not due until a tick later.
	s.scanOnce(context.Background(), s.finders["arena"])
	if st := stats(t, s, "arena"); st.Entries != 4 || st.ScannedRows != 4 {
		t.Fatalf("after one fetch: %d entries, %d rows scanned; want 4", st.Entries, st.ScannedRows)
	}
	if wait := s.scanOnce(context.Background(), s.finders["arena"]); wait != time.Second {
		t.Fatalf("a fetch before the tick: wait %v, want the tick", wait)
	}
	if st := stats(t, s, "arena"); st.ScanBatches != 1 {
		t.Fatalf("%d batches, want 1: the second fetch was not due", st.ScanBatches)
	}
	for range 3 {
		clk.Advance(time.Second)
		s.scanOnce(context.Background(), s.finders["arena"])
	}
	st := stats(t, s, "arena")
	if st.Entries != 10 || st.ScanPasses != 1 {
		t.Fatalf("after the pass: %d entries, %d passes; want 10 and 1", st.Entries, st.ScanPasses)
	}
	if res := mustFind(t, s, "arena", attacker("me", 1000, "gold", "cats")); res.Type != opponent.ResultSuccess || res.PlayerID != "p00" {
		t.Fatalf("query after the refill = %+v, want p00", res)
	}
}

func TestScanDoesNotUndoUpdatesMadeDuringTheFetch(t *testing.T) {
	docs := newMemDocs()
	cfg := arenaFinder()
	s, _ := newService(t, docs, cfg)
	mustUpdate(t, s, "arena", defender("banned", 1500, "gold", "wolves"))
	mustUpdate(t, s, "arena", defender("mover", 1500, "gold", "wolves"))
	// The fetch reads both rows; before it returns, one player is removed
	// and the other moves. The fetched rows are older and must not win.
	docs.duringList = func() {
		docs.duringList = nil
		if _, err := s.RemovePlayer(context.Background(), "arena", "banned"); err != nil {
			t.Error(err)
		}
		if _, err := s.UpdatePlayer(context.Background(), "arena", defender("mover", 2900, "gold", "wolves")); err != nil {
			t.Error(err)
		}
	}
	s.scanOnce(context.Background(), s.finders["arena"])
	q := attacker("me", 1500, "gold", "cats")
	q.ReturnModel = true
	res := mustFind(t, s, "arena", q)
	if res.Type != opponent.ResultNoneFound {
		t.Fatalf("query near 1500 = %+v, want NONE_FOUND: the removed and moved players came back", res)
	}
	if st := stats(t, s, "arena"); st.Entries != 1 {
		t.Fatalf("%d entries, want only mover at 2900", st.Entries)
	}
}

func TestScanRetriesAfterAStoreError(t *testing.T) {
	docs := newMemDocs()
	s, _ := newService(t, docs, arenaFinder())
	docs.failLists = true
	if wait := s.scanOnce(context.Background(), s.finders["arena"]); wait != time.Second {
		t.Fatalf("after an error: wait %v, want a tick", wait)
	}
	if st := stats(t, s, "arena"); st.ScanErrors != 1 || st.ScanBatches != 0 {
		t.Fatalf("stats = %+v", st)
	}
	docs.failLists = false
	mustUpdate(t, s, "arena", defender("p", 1500, "gold", "wolves"))
	s.scanOnce(context.Background(), s.finders["arena"])
	if st := stats(t, s, "arena"); st.ScanBatches != 1 {
		t.Fatalf("the scan did not resume: %+v", st)
	}
}

func TestScanSkipsBadRows(t *testing.T) {
	docs := newMemDocs()
	s, _ := newService(t, docs, arenaFinder())
	docs.PutDocument(context.Background(), cupid.Fence{}, arenaKind, "a-garbled", []byte("{not json"), t0)
	bad, _ := json.Marshal(opponent.Single("b-bad", 1, nil)) // no league label
	docs.PutDocument(context.Background(), cupid.Fence{}, arenaKind, "b-bad", bad, t0)
	good, _ := json.Marshal(defender("c-good", 1500, "gold", "wolves"))
	docs.PutDocument(context.Background(), cupid.Fence{}, arenaKind, "c-good", good, t0)
	s.scanOnce(context.Background(), s.finders["arena"])
	if st := stats(t, s, "arena"); st.Entries != 1 || st.ScanRejected != 2 || st.ScannedRows != 1 {
		t.Fatalf("stats = %+v, want c-good in and two rows rejected", st)
	}
}

func TestSizingModelIsStoredAndLoadedAfterARestart(t *testing.T) {
	docs := newMemDocs()
	cfg := arenaFinder()
	s, _ := newService(t, docs, cfg)
	// Too few samples: nothing made, nothing stored.
	mustUpdate(t, s, "arena", defender("p0", 100, "gold", "wolves"))
	if r, err := s.Rebalance(context.Background(), "arena"); err != nil || r.Resized {
		t.Fatalf("rebalance on one sample = %+v, %v", r, err)
	}
	if docs.count(SizingKind) != 0 {
		t.Fatal("a model was stored without enough samples")
	}
	for i := range 20 {
		mustUpdate(t, s, "arena", defender(fmt.Sprintf("p%d", i+1), 100+float64(i%2)*2000, "gold", "wolves"))
	}
	r, err := s.Rebalance(context.Background(), "arena")
	if err != nil || !r.Resized || r.Samples < 5 || r.Buckets != 2 {
		t.Fatalf("rebalance = %+v, %v", r, err)
	}
	if !docs.has(SizingKind, "arena") {
		t.Fatal("the sizing model was not stored")
	}
	before := stats(t, s, "arena")
	s.Close()

	after, _ := newService(t, docs, cfg)
	if st := stats(t, after, "arena"); !st.HasModel {
		t.Fatal("the sizing model was not loaded after the restart")
	}
	// Buckets created after the restart take their size from the model.
	mustUpdate(t, after, "arena", defender("x", 100, "gold", "wolves"))
	mustUpdate(t, after, "arena", defender("y", 2100, "gold", "wolves"))
	st, _ := after.Stats("arena", true)
	if st.Capacity != before.Capacity {
		t.Fatalf("capacity after the restart %d, want %d as sized by the model", st.Capacity, before.Capacity)
	}
}

func TestStaleSizingModelIsSkipped(t *testing.T) {
	docs := newMemDocs()
	other, _ := json.Marshal(opponent.SizingModel{Version: 1, MinMMR: 0, MaxMMR: 10, MmrBucketCount: 1})
	docs.PutDocument(context.Background(), cupid.Fence{}, SizingKind, "arena", other, t0)
	docs.PutDocument(context.Background(), cupid.Fence{}, SizingKind, "retired", other, t0)
	s, _ := newService(t, docs, arenaFinder())
	if st := stats(t, s, "arena"); st.HasModel {
		t.Fatal("a model for another MMR layout was loaded")
	}
}

func TestBackgroundRebalanceFollowsTheInterval(t *testing.T) {
	docs := newMemDocs()
	f := updatesOnlyFinder()
	f.Opponent.Sizing = opponent.Sizing{Interval: opponent.Duration(time.Minute), MinSamples: 3}
	s, clk := newService(t, docs, f)
	fd := s.finders["battles"]
	if wait := s.step(context.Background(), fd); wait != time.Minute {
		t.Fatalf("first step waits %v, want the interval", wait)
	}
	for i := range 5 {
		mustUpdate(t, s, "battles", opponent.Single(fmt.Sprint(i), float64(i), nil))
	}
	clk.Advance(30 * time.Second)
	if wait := s.step(context.Background(), fd); wait != 30*time.Second || stats(t, s, "battles").Rebalances != 0 {
		t.Fatalf("step before the interval: wait %v, rebalances %d", wait, stats(t, s, "battles").Rebalances)
	}
	clk.Advance(30 * time.Second)
	s.step(context.Background(), fd)
	if st := stats(t, s, "battles"); st.Rebalances != 1 || !st.HasModel {
		t.Fatalf("after the interval: %+v, want one rebalance", st)
	}
	if docs.count(SizingKind) != 1 {
		t.Fatal("the model was stored although store_players is off: sizing models are stored regardless")
	}
}

func TestInstancesShareTheTableAndEveryUpdate(t *testing.T) {
	docs := newMemDocs()
	s, _ := newService(t, docs, instanceFinders()...)
	mustUpdate(t, s, "arena-1", opponent.Single("a", 500, nil))
	mustUpdate(t, s, "arena-2", opponent.Single("b", 510, nil))
	if docs.count(arenaKind) != 2 {
		t.Fatalf("table has %d rows, want 2 (written once each)", docs.count(arenaKind))
	}
	for _, name := range []string{"arena-1", "arena-2"} {
		if st := stats(t, s, name); st.Entries != 2 {
			t.Fatalf("%s has %d entries, want both players", name, st.Entries)
		}
	}
	if _, err := s.RemovePlayer(context.Background(), "arena-2", "a"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"arena-1", "arena-2"} {
		if res := mustFind(t, s, name, opponent.Query{AttackerID: "me", MMR: 500}); res.PlayerID != "b" {
			t.Fatalf("%s offers %+v, want b: a was removed through the other instance", name, res)
		}
	}
	if got := s.Finders(); len(got) != 2 || got[0] != "arena-1" {
		t.Fatalf("Finders = %v", got)
	}
}

func TestMultipleEntriesIgnoreEmptyUpdatesAndRemove(t *testing.T) {
	docs := newMemDocs()
	s, _ := newService(t, docs, multiFinder())
	r := mustUpdate(t, s, "teams", opponent.Model{PlayerID: "p", Entries: []opponent.Entry{{MMR: 150}, {MMR: 850}}})
	if r.Inserted != 2 {
		t.Fatalf("update = %+v, want two entries", r)
	}
	if r := mustUpdate(t, s, "teams", opponent.Model{PlayerID: "p"}); r.Outcome != OutcomeIgnored {
		t.Fatalf("empty update = %+v, want ignored", r)
	}
	res := mustFind(t, s, "teams", opponent.Query{AttackerID: "me", MMR: 860})
	if res.PlayerID != "p" || res.Model == nil || res.Model.Entries[0].MMR != 850 {
		t.Fatalf("query = %+v, want p's 850 entry", res)
	}
	n, err := s.RemovePlayer(context.Background(), "teams", "p")
	if err != nil || n != 2 || docs.has(PlayerKindPrefix+"teams", "p") {
		t.Fatalf("RemovePlayer = %d, %v", n, err)
	}
}

// TestFinderValuesAreChecked gives New bad values directly, as code that
// does not read a configuration file would: each is refused with an
// invalid-argument error naming the field, and nothing starts.
func TestFinderValuesAreChecked(t *testing.T) {
	small := func(name string) Finder {
		return Finder{Name: name, Opponent: opponent.Config{PlayerCacheSize: 100, MinMMR: 0, MaxMMR: 1000, MmrBucketCount: 10}}
	}
	with := func(f Finder, change func(*Finder)) Finder {
		change(&f)
		return f
	}
	cases := []struct {
		name    string
		finders []Finder
		noStore bool
		field   string
	}{
		{"no name", []Finder{small("")}, false, "finders[0].name"},
		{"bad name", []Finder{small("a b")}, false, "finders[0].name"},
		{"long name", []Finder{small(strings.Repeat("a", MaxNameBytes+1))}, false, "finders[0].name"},
		{"duplicate name", []Finder{small("a"), small("a")}, false, "finders[1].name"},
		{"bad table name", []Finder{with(small("a"), func(f *Finder) { f.PlayerTable = "t/1" })}, false, "finders[0].player_table"},
		{"cache size zero", []Finder{small("a"), with(small("b"), func(f *Finder) { f.Opponent.PlayerCacheSize = 0 })}, false, "finders[1].player_cache_size"},
		{"empty MMR range", []Finder{with(small("a"), func(f *Finder) { f.Opponent.MaxMMR = 0 })}, false, "finders[0].max_mmr"},
		{"unknown label type", []Finder{with(small("a"), func(f *Finder) {
			f.Opponent.Attributes = []opponent.Attribute{{Name: "league", Type: "string"}}
			f.Opponent.QueryAttributes = []opponent.Attribute{{Name: "league", Type: "string"}}
			f.Opponent.Strategies = []opponent.Strategy{{Name: "league", Kind: "sorted", Attribute: "league"}}
		})}, false, "finders[0].strategies[0].kind"},
		{"bad expression", []Finder{with(small("a"), func(f *Finder) { f.Opponent.Quality.Score = "player.nope +" })}, false, "finders[0].quality.score"},
		{"bad threshold", []Finder{with(small("a"), func(f *Finder) { f.Opponent.PlayerIgnoreUpdateInsertThreshold = "sometimes" })}, false,
			"finders[0].player_ignore_update_insert_threshold"},
		{"memory-only scan", []Finder{with(small("a"), func(f *Finder) { f.MemoryOnly = true; f.Opponent.Scan.Enabled = true })}, false, "finders[0].scan.enabled"},
		{"scan without a store", []Finder{with(small("a"), func(f *Finder) { f.Opponent.Scan.Enabled = true })}, true, "finders[0].scan.enabled"},
		{"instances disagree on keeping the table", []Finder{
			with(small("a"), func(f *Finder) { f.PlayerTable = "t" }),
			with(small("b"), func(f *Finder) { f.PlayerTable = "t"; f.MemoryOnly = true }),
		}, false, "finders[1].memory_only"},
		{"instance named like another's table", []Finder{
			small("t"),
			with(small("b"), func(f *Finder) { f.PlayerTable = "t"; f.Opponent.AllowMultipleEntriesPerPlayer = true }),
		}, false, "finders[1].allow_multiple_entries_per_player"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := Options{Docs: newMemDocs(), Finders: c.finders}
			if c.noStore {
				o.Docs = nil
			}
			s, err := New(o)
			if s != nil {
				t.Fatalf("New built a service from bad values")
			}
			wantErr(t, err, cupid.CodeInvalid, c.field)
		})
	}
	// None at all is fine: every call then says there is no such finder.
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.FindOpponent(context.Background(), "arena", opponent.Query{AttackerID: "me"})
	wantErr(t, err, cupid.CodeNotFound, "finder")
}

// TestDefaultsOfFinderValues: a zero Seed derives one from the name (the
// same choices every run), an empty PlayerTable is the finder's name, and
// MemoryOnly false keeps the table.
func TestDefaultsOfFinderValues(t *testing.T) {
	docs := newMemDocs()
	f := arenaFinder()
	f.Opponent.Scan.Enabled = false
	s, _ := newService(t, docs, f)
	if r := mustUpdate(t, s, "arena", defender("p", 1500, "gold", "wolves")); !r.Stored || !docs.has(PlayerKindPrefix+"arena", "p") {
		t.Fatalf("update = %+v; want the row in the table named after the finder", r)
	}
	if st := stats(t, s, "arena"); !st.StoresPlayers || st.ScanEnabled {
		t.Fatalf("stats = %+v", st)
	}
	// Two services with the same name and no seed choose alike; another
	// name (or an explicit seed) chooses otherwise.
	picks := func(f Finder) []string {
		s, _ := newService(t, newMemDocs(), f)
		for i := range 20 {
			mustUpdate(t, s, f.Name, defender(fmt.Sprintf("p%02d", i), 1500, "gold", "wolves"))
		}
		var out []string
		for range 10 {
			out = append(out, mustFind(t, s, f.Name, attacker("me", 1500, "gold", "cats")).PlayerID)
		}
		return out
	}
	a, b := arenaFinder(), arenaFinder()
	if pa, pb := picks(a), picks(b); !slices.Equal(pa, pb) {
		t.Fatalf("same name, no seed: %v and %v", pa, pb)
	}
	b.Seed = nameSeed("arena") + 1
	if pa, pb := picks(a), picks(b); slices.Equal(pa, pb) {
		t.Fatalf("another seed chose the same: %v", pa)
	}
}

// TestFakeOpponentIDsAreNotPlayerIDs: fake opponents' ids start with
// opponent.FakeIDPrefix and are promised never to be a real player's, so
// an update, an attacker or an exclusion under such an id is refused with
// the field named and the reason given, and changes nothing.
func TestFakeOpponentIDsAreNotPlayerIDs(t *testing.T) {
	docs := newMemDocs()
	s, _ := newService(t, docs, updatesOnlyFinder(), arenaFinder())
	// The fake a query gets when the cache is empty.
	fake := mustFind(t, s, "battles", opponent.Query{AttackerID: "me", MMR: 500})
	if fake.Type != opponent.ResultFakeOpponent || !strings.HasPrefix(fake.PlayerID, opponent.FakeIDPrefix) {
		t.Fatalf("empty cache = %+v, want a fake", fake)
	}
	before := stats(t, s, "battles")

	// A real player may not take that id, nor any with the prefix.
	for _, id := range []string{fake.PlayerID, opponent.FakeIDPrefix, opponent.FakeIDPrefix + "ann"} {
		_, err := s.UpdatePlayer(context.Background(), "battles", opponent.Single(id, 500, nil))
		wantErr(t, err, cupid.CodeInvalid, "player_id")
		if msg := err.Error(); !strings.Contains(msg, "fake opponents") || !strings.Contains(msg, id) {
			t.Fatalf("message %q does not say why", msg)
		}
	}
	// Nor in a finder that keeps a table: nothing is written.
	_, err := s.UpdatePlayer(context.Background(), "arena", defender(opponent.FakeIDPrefix+"x:0", 1500, "gold", "wolves"))
	wantErr(t, err, cupid.CodeInvalid, "player_id")
	if docs.count(arenaKind) != 0 {
		t.Fatal("the refused player was stored")
	}
	// An empty update (the player made ineligible) is refused alike.
	_, err = s.UpdatePlayer(context.Background(), "battles", opponent.Model{PlayerID: fake.PlayerID})
	wantErr(t, err, cupid.CodeInvalid, "player_id")

	// An attacker is a real player too; exclusions name real players.
	_, err = s.FindOpponent(context.Background(), "battles", opponent.Query{AttackerID: fake.PlayerID, MMR: 500})
	wantErr(t, err, cupid.CodeInvalid, "attacker_id")
	_, err = s.FindOpponent(context.Background(), "battles", opponent.Query{AttackerID: "me", MMR: 500, Exclude: []string{"bob", fake.PlayerID}})
	wantErr(t, err, cupid.CodeInvalid, "exclude[1]")

	after := stats(t, s, "battles")
	if after.Entries != 0 || after.Inserted != before.Inserted || after.Fakes != before.Fakes ||
		after.InvalidUpdates != before.InvalidUpdates+4 || after.InvalidQueries != before.InvalidQueries+2 {
		t.Fatalf("refused calls changed the finder or were not counted: before %+v, after %+v", before, after)
	}
	// Ids that merely contain the prefix are real ones.
	mustUpdate(t, s, "battles", opponent.Single("not-fake:1", 500, nil))
	if res := mustFind(t, s, "battles", opponent.Query{AttackerID: "me", MMR: 500}); res.Type != opponent.ResultSuccess || res.PlayerID != "not-fake:1" {
		t.Fatalf("query = %+v, want not-fake:1", res)
	}
}

// TestScanSkipsRowsWithFakeIDs: a row stored under a fake-opponent id
// (before such ids were refused) is never taken into the cache, and
// RemovePlayer can still delete it.
func TestScanSkipsRowsWithFakeIDs(t *testing.T) {
	docs := newMemDocs()
	s, _ := newService(t, docs, arenaFinder())
	for _, id := range []string{"a-real", opponent.FakeIDPrefix + "me:0"} {
		body, _ := json.Marshal(defender(id, 1500, "gold", "wolves"))
		docs.PutDocument(context.Background(), cupid.Fence{}, arenaKind, id, body, t0)
	}
	s.scanOnce(context.Background(), s.finders["arena"])
	if st := stats(t, s, "arena"); st.Entries != 1 || st.ScanRejected != 1 || st.ScannedRows != 1 {
		t.Fatalf("stats = %+v, want the real row in and the fake one rejected", st)
	}
	if _, err := s.RemovePlayer(context.Background(), "arena", opponent.FakeIDPrefix+"me:0"); err != nil {
		t.Fatal(err)
	}
	if docs.has(arenaKind, opponent.FakeIDPrefix+"me:0") {
		t.Fatal("RemovePlayer left the row")
	}
}

func TestConcurrentUpdatesAndQueries(t *testing.T) {
	docs := newMemDocs()
	s, _ := newService(t, docs, arenaFinder())
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := range 200 {
				id := fmt.Sprintf("w%d-%d", w, i%50)
				var err error
				if i%7 == 0 {
					_, err = s.UpdatePlayer(context.Background(), "arena", opponent.Model{PlayerID: id})
				} else {
					_, err = s.UpdatePlayer(context.Background(), "arena", defender(id, float64(i*13%3000), "gold", fmt.Sprint(w)))
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
		go func() {
			defer wg.Done()
			for i := range 200 {
				if _, err := s.FindOpponent(context.Background(), "arena", attacker("me", float64(i*17%3000), "gold", "none")); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 20 {
			s.scanOnce(context.Background(), s.finders["arena"])
			s.Rebalance(context.Background(), "arena")
		}
	}()
	wg.Wait()
	st := stats(t, s, "arena")
	if st.Queries != 800 || st.Capacity > st.CacheSize {
		t.Fatalf("stats = %+v", st)
	}
}

func TestMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	s, err := New(Options{Docs: newMemDocs(), Finders: []Finder{updatesOnlyFinder()}, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	mustFind(t, s, "battles", opponent.Query{AttackerID: "me", MMR: 1})
	mustUpdate(t, s, "battles", opponent.Single("p", 1, nil))
	mustFind(t, s, "battles", opponent.Query{AttackerID: "me", MMR: 1})
	s.FindOpponent(context.Background(), "battles", opponent.Query{MMR: 1})
	got := map[string]float64{}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range families {
		for _, m := range mf.GetMetric() {
			key := mf.GetName()
			for _, l := range m.GetLabel() {
				key += "," + l.GetName() + "=" + l.GetValue()
			}
			switch {
			case m.GetCounter() != nil:
				got[key] = m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				got[key] = m.GetGauge().GetValue()
			case m.GetHistogram() != nil:
				got[key] = float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	for key, want := range map[string]float64{
		"cupid_opponent_queries_total,finder=battles,result=fake_opponent": 1,
		"cupid_opponent_queries_total,finder=battles,result=success":       1,
		"cupid_opponent_queries_total,finder=battles,result=none_found":    0,
		"cupid_opponent_queries_total,finder=battles,result=invalid":       1,
		"cupid_opponent_query_seconds,finder=battles":                      3,
		"cupid_opponent_cache_entries,finder=battles":                      0, // offered and removed
		"cupid_opponent_cache_size,finder=battles":                         64,
		"cupid_opponent_entries_total,change=inserted,finder=battles":      1,
	} {
		if v, ok := got[key]; !ok || v != want {
			t.Errorf("%s = %v (present %v), want %v", key, v, ok, want)
		}
	}
}
