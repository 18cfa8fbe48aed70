package dashboard

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/opponent"
	"github.com/cupid-match/cupid/pairing"
	"github.com/cupid-match/cupid/service/opponentsvc"
	"github.com/cupid-match/cupid/service/pairingsvc"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// The package's tests run the real services over the in-memory store; the
// API's tests (api/dashboard_test.go) cover auth and the endpoints as
// mounted, the browser test (cmd/cupid) the pages.

const duelRules = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1}}`

type fixture struct {
	tickets   *ticketsvc.Service
	pairing   *pairingsvc.Service
	opponents *opponentsvc.Service
	url       string
	srv       *server
	store     *memstore.Store
}

func newFixture(t *testing.T, o Options) *fixture {
	t.Helper()
	store := memstore.New()
	log := slog.New(slog.DiscardHandler)
	ts, err := ticketsvc.New(ticketsvc.Options{Store: store, Documents: store, Logger: log,
		Queues: []ticketsvc.Queue{{Name: "duel", TTL: time.Minute, Ruleset: []byte(duelRules)}}})
	if err != nil {
		t.Fatal(err)
	}
	ps, err := pairingsvc.New(pairingsvc.Options{Docs: store, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	os, err := opponentsvc.New(opponentsvc.Options{Docs: store, Logger: log, Finders: []opponentsvc.Finder{{Name: "raid", MemoryOnly: true,
		Opponent: opponent.Config{PlayerCacheSize: 1000, MinMMR: 0, MaxMMR: 3000, MmrBucketCount: 30}}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, start := range []func(context.Context) error{ts.Start, ps.Start, os.Start} {
		if err := start(ctx); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(ts.Close)
	t.Cleanup(ps.Close)
	t.Cleanup(os.Close)
	o.Tickets, o.Pairing, o.Opponents, o.Logger = ts, ps, os, log
	if o.Docs == nil {
		o.Docs = store
	}
	h, s := newServer(o)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &fixture{tickets: ts, pairing: ps, opponents: os, url: srv.URL, srv: s, store: store}
}

// sse reads a stream's messages: the event kind and the data.
type sse struct {
	res   *http.Response
	lines *bufio.Scanner
}

func openStream(t *testing.T, ctx context.Context, url string) (*sse, int) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		res.Body.Close()
		return nil, res.StatusCode
	}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return &sse{res: res, lines: sc}, http.StatusOK
}

func (s *sse) next(t *testing.T) (string, map[string]any) {
	t.Helper()
	kind := "message"
	for s.lines.Scan() {
		line := s.lines.Text()
		if k, ok := strings.CutPrefix(line, "event: "); ok {
			kind = k
			continue
		}
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			var v map[string]any
			if err := json.Unmarshal([]byte(d), &v); err != nil {
				t.Fatal(err)
			}
			return kind, v
		}
	}
	t.Fatalf("the stream ended: %v", s.lines.Err())
	return "", nil
}

// At most MaxStreams are open; a closed one frees its place.
func TestStreamsAreBounded(t *testing.T) {
	f := newFixture(t, Options{MaxStreams: 1})
	ctx, cancel := context.WithCancel(context.Background())
	first, status := openStream(t, ctx, f.url+APIPrefix+"stream?page=queues")
	if status != http.StatusOK {
		t.Fatalf("first stream: %d", status)
	}
	first.next(t)
	if _, status := openStream(t, context.Background(), f.url+APIPrefix+"stream?page=queues"); status != http.StatusTooManyRequests {
		t.Fatalf("second stream: status %d, want 429", status)
	}
	cancel()
	first.res.Body.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s, status := openStream(t, context.Background(), f.url+APIPrefix+"stream?page=queues")
		if status == http.StatusOK {
			s.res.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no stream could open after the first closed: %d", status)
		}
		time.Sleep(10 * time.Millisecond) // the server notices the close on its own time
	}
}

// The events page's snapshot has the rooms and the met-graph after a
// round; a stream of an event that does not exist sends an error event and
// stays open.
func TestEventSnapshots(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := context.Background()
	if _, err := f.pairing.CreateEvent(ctx, pairingsvc.NewEvent{ID: "mixer", Name: "Mixer",
		Config: pairing.Config{Rooms: 2, Round: time.Hour, Countdown: time.Millisecond, MinLobby: 2}}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"ann", "bob", "cid"} {
		if _, _, err := f.pairing.Join(ctx, "mixer", p); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"ann", "bob"} {
		if _, _, err := f.pairing.EnterLobby(ctx, "mixer", p); err != nil {
			t.Fatal(err)
		}
	}
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	s, status := openStream(t, sctx, f.url+APIPrefix+"stream?page=events&event=mixer")
	if status != http.StatusOK {
		t.Fatalf("stream: %d", status)
	}
	defer s.res.Body.Close()
	var ev map[string]any
	for ev == nil || ev["round"] != 1.0 { // the countdown ends on the event's own time
		_, snap := s.next(t)
		ev, _ = snap["event"].(map[string]any)
	}
	b, _ := json.Marshal(ev)
	var got struct {
		Phase string             `json:"phase"`
		Pairs []pairing.RoomPair `json:"pairs"`
		Away  []string           `json:"away"`
		Graph pairing.MetGraph   `json:"graph"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Phase != "round" || len(got.Pairs) != 1 || len(got.Away) != 1 || got.Away[0] != "cid" {
		t.Fatalf("event %s", b)
	}
	if len(got.Graph.Edges) != 2 || got.Graph.Edges[0] != (pairing.MetEdge{From: "ann", To: "bob"}) || got.Graph.Edges[1] != (pairing.MetEdge{From: "bob", To: "ann"}) {
		t.Fatalf("met-graph %+v", got.Graph)
	}

	bad, status := openStream(t, sctx, f.url+APIPrefix+"stream?page=events&event=nope")
	if status != http.StatusOK {
		t.Fatalf("stream of an unknown event: %d", status)
	}
	defer bad.res.Body.Close()
	kind, msg := bad.next(t)
	if kind != "error" || msg["code"] != "not_found" || !strings.Contains(msg["message"].(string), "nope") {
		t.Fatalf("stream of an unknown event: %s %v", kind, msg)
	}
}

// The finders page lists buckets with their labels in words.
func TestFinderSnapshots(t *testing.T) {
	f := newFixture(t, Options{})
	for i, mmr := range []float64{1510, 1520, 2990} {
		m := opponent.Single(string(rune('a'+i)), mmr, map[string]cupid.Value{})
		if _, err := f.opponents.UpdatePlayer(context.Background(), "raid", m); err != nil {
			t.Fatal(err)
		}
	}
	s := &server{o: Options{Opponents: f.opponents}}
	v, err := s.finders()
	if err != nil {
		t.Fatal(err)
	}
	fs := v.(map[string]any)["finders"].([]finderOut)
	if len(fs) != 1 || fs[0].Players != 3 || len(fs[0].PerBucket) != 2 {
		t.Fatalf("finders %+v", fs)
	}
	var labels []string
	for _, b := range fs[0].PerBucket {
		labels = append(labels, b.Label)
	}
	if strings.Join(labels, "; ") != "MMR 1500 to 1600; MMR 2900 to 3000" {
		t.Fatalf("labels %q", labels)
	}
}

// Only maxTries scenarios run at once; one more is refused, not queued.
func TestTriesAreBounded(t *testing.T) {
	f := newFixture(t, Options{})
	body := `{"ruleset": ` + jsonQuote(duelRules) + `, "tickets": [{"id": "a"}, {"id": "b", "at": 1}]}`
	post := func() (int, string) {
		res, err := http.Post(f.url+APIPrefix+"try", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var e apiError
		_ = json.NewDecoder(res.Body).Decode(&e)
		return res.StatusCode, e.Message
	}
	if status, msg := post(); status != http.StatusOK {
		t.Fatalf("a try: %d %s", status, msg)
	}
	for range maxTries {
		f.srv.tries <- struct{}{} // as if that many were running
	}
	if status, msg := post(); status != http.StatusTooManyRequests || !strings.Contains(msg, "tries are running") {
		t.Fatalf("a try past the limit: %d %s", status, msg)
	}
	<-f.srv.tries
	if status, msg := post(); status != http.StatusOK {
		t.Fatalf("a try once one ended: %d %s", status, msg)
	}
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestImportEndpoint(t *testing.T) {
	f := newFixture(t, Options{})
	post := func(body string) (int, map[string]any) {
		res, err := http.Post(f.url+APIPrefix+"import", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return res.StatusCode, out
	}
	nakama := `{"query": "+properties.level:>=10", "min_count": 2, "max_count": 2}`
	status, out := post(`{"from": "nakama", "source": ` + jsonQuote(nakama) + `}`)
	if status != http.StatusOK || out["outcome"] != "exact" || !strings.Contains(out["ruleset"].(string), `"ticket_query"`) {
		t.Fatalf("import: %d %v", status, out)
	}
	// What the editor gets is a ruleset the check endpoint finds valid.
	res, err := http.Post(f.url+APIPrefix+"check", "application/json", strings.NewReader(`{"ruleset": `+jsonQuote(out["ruleset"].(string))+`}`))
	if err != nil {
		t.Fatal(err)
	}
	var chk struct{ Valid bool }
	json.NewDecoder(res.Body).Decode(&chk)
	res.Body.Close()
	if !chk.Valid {
		t.Errorf("the imported ruleset does not check")
	}
	for _, tc := range []struct{ body, field string }{
		{`{"from": "nakama"}`, "source"},
		{`{"from": "elsewhere", "source": "{}"}`, "from"},
	} {
		status, out := post(tc.body)
		if status != http.StatusBadRequest || out["field"] != tc.field {
			t.Errorf("%s: %d %v, want invalid_argument on %s", tc.body, status, out, tc.field)
		}
	}
}
