package dashboard

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/service/retentionsvc"
	"github.com/cupid-match/cupid/service/statshistory"
	"github.com/cupid-match/cupid/service/ticketsvc/queuestats"
)

// The queues' history, the nodes of a cluster and the retention section:
// what each answers, and bad input refused naming the parameter.

func TestHistoryEndpoint(t *testing.T) {
	docs := memstore.New()
	now := time.Now().UTC().Truncate(time.Minute).Add(20 * time.Second)
	hist := statshistory.New(statshistory.Options{Source: noMinutes{}, Docs: docs, Now: func() time.Time { return now }})
	// Minutes a process before this one wrote, two hours ago and now.
	for _, m := range []queuestats.Minute{
		{Queue: "duel", At: now.Truncate(time.Minute).Add(-2 * time.Hour), Arrivals: 7, Matches: 3, Waited: 6, P50: 12, Scored: 3, Quality: 0.9},
		{Queue: "duel", At: now.Truncate(time.Minute), Arrivals: 2},
	} {
		b, _ := json.Marshal(m)
		if err := docs.PutDocument(context.Background(), cupid.Fence{}, statshistory.Kind("duel"), m.At.Format("2006-01-02T15:04Z")+"/earlier", b, now); err != nil {
			t.Fatal(err)
		}
	}
	f := newFixture(t, Options{History: hist, Docs: docs, Now: func() time.Time { return now }})
	for _, c := range []struct {
		name, query string
		status      int
		code, field string
	}{
		{"no queue", "?range=6h", 400, "invalid_argument", "queue"},
		{"an unknown queue", "?queue=nope&range=6h", 404, "not_found", "queue"},
		{"no range", "?queue=duel", 400, "invalid_argument", "range"},
		{"an unknown range", "?queue=duel&range=2y", 400, "invalid_argument", "range"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f.do(t, "GET", APIPrefix+"history"+c.query, "").refused(t, c.status, c.code, c.field)
		})
	}
	for _, c := range []struct {
		rng            string
		points         int
		arrivals, step float64
	}{
		{"1h", 60, 2, 60},
		{"6h", 72, 9, 300},
		{"24h", 96, 9, 900},
		{"7d", 84, 9, 7200},
	} {
		a := f.do(t, "GET", APIPrefix+"history?queue=duel&range="+c.rng, "").ok(t)
		ps := a.body["points"].([]any)
		var arrivals float64
		for _, p := range ps {
			arrivals += p.(map[string]any)["arrivals"].(float64)
		}
		if len(ps) < c.points || len(ps) > c.points+1 || arrivals != c.arrivals || a.body["step_seconds"] != c.step {
			t.Errorf("%s: %d points, %v arrivals, step %v; want %d, %v, %v", c.rng, len(ps), arrivals, a.body["step_seconds"], c.points, c.arrivals, c.step)
		}
	}
	// A server without a history says so.
	g := newFixture(t, Options{})
	g.do(t, "GET", APIPrefix+"history?queue=duel&range=6h", "").refused(t, http.StatusServiceUnavailable, "unavailable", "range")
}

type noMinutes struct{}

func (noMinutes) QueueMinutes(from, to time.Time) []queuestats.Minute { return nil }
func (noMinutes) Queues() []string                                    { return []string{"duel"} }

// fakeCluster is a cluster's database as a test sets it.
type fakeCluster struct {
	nodes  []NodeInfo
	leases []LeaseInfo
}

func (c fakeCluster) Nodes(context.Context) ([]NodeInfo, error)   { return c.nodes, nil }
func (c fakeCluster) Leases(context.Context) ([]LeaseInfo, error) { return c.leases, nil }
func (c fakeCluster) TTL() time.Duration                          { return 10 * time.Second }

func TestNodesEndpoint(t *testing.T) {
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	single := newFixture(t, Options{})
	if a := single.do(t, "GET", APIPrefix+"nodes", "").ok(t); a.body["cluster"] != false {
		t.Fatalf("one node: %s", a.raw)
	}
	f := newFixture(t, Options{Now: func() time.Time { return now }, Cluster: fakeCluster{
		nodes: []NodeInfo{{ID: "n1", Addr: "10.0.0.1:7070", Seen: now.Add(-2 * time.Second)}, {ID: "n2", Addr: "10.0.0.2:7070", Seen: now.Add(-time.Minute)}},
		leases: []LeaseInfo{
			{Name: "duel", Owner: "n1", Token: 3, Expires: now.Add(5 * time.Second)},
			{Name: "pairing", Owner: "n1", Token: 1, Expires: now.Add(5 * time.Second)},
			{Name: "retention", Owner: "n2", Token: 2, Expires: now.Add(-time.Second)}, // lapsed
		},
	}})
	a := f.do(t, "GET", APIPrefix+"nodes", "").ok(t)
	var got struct {
		Nodes []struct {
			ID    string      `json:"id"`
			Live  bool        `json:"live"`
			Age   float64     `json:"heartbeat_age_seconds"`
			Holds []LeaseInfo `json:"holds"`
		} `json:"nodes"`
		Unheld []LeaseInfo `json:"unheld"`
	}
	b, _ := json.Marshal(a.body)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	n1, n2 := got.Nodes[0], got.Nodes[1]
	if !n1.Live || n1.Age != 2 || len(n1.Holds) != 2 || n1.Holds[0].Name != "duel" || n2.Live || len(n2.Holds) != 0 ||
		len(got.Unheld) != 1 || got.Unheld[0].Name != "retention" {
		t.Fatalf("nodes %s", a.raw)
	}
}

func TestRetentionEndpoint(t *testing.T) {
	none := newFixture(t, Options{})
	if a := none.do(t, "GET", APIPrefix+"retention", "").ok(t); a.body["retention"] != false {
		t.Fatalf("no retention: %s", a.raw)
	}
	store := memstore.New()
	rs, err := retentionsvc.New(retentionsvc.Options{Store: store, Keep: map[cupid.RetentionKind]time.Duration{cupid.RetainTickets: 7 * 24 * time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rs.Pass(context.Background(), cupid.Fence{}); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, Options{Retention: rs})
	a := f.do(t, "GET", APIPrefix+"retention", "").ok(t)
	kinds, passes := a.body["kinds"].([]any), a.body["passes"].([]any)
	if len(kinds) != len(cupid.RetentionKinds) || kinds[0].(map[string]any)["keep_seconds"] != 7*24*3600.0 || kinds[1].(map[string]any)["keep_seconds"] != nil ||
		len(passes) != 1 || passes[0].(map[string]any)["removed"].(map[string]any)["tickets"] != 0.0 {
		t.Fatalf("retention %s", a.raw)
	}
}
