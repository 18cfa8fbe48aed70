package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cupid-match/cupid/cluster"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
)

// The dashboard's nodes view on a cluster of two processes on one
// PostgreSQL database: each node with its heartbeat and the leases it
// holds, as the database has them, whichever node is asked.
func TestDashboardNodesOnACluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts server processes")
	}
	c := &testCluster{t: t, db: postgresURL(t), config: clusterConfig(t), nodes: map[string]*process{}}
	a, b := c.start(), c.start()
	ctx := context.Background()
	c.waitSettled(ctx, clusterQueues+5)
	// The leases settle once both nodes are in (the first hands the second
	// its share): each node's view must then match the database's.
	type view struct {
		Cluster bool `json:"cluster"`
		Nodes   []struct {
			ID    string  `json:"id"`
			Live  bool    `json:"live"`
			Age   float64 `json:"heartbeat_age_seconds"`
			Holds []struct {
				Name string `json:"name"`
			} `json:"holds"`
		} `json:"nodes"`
	}
	read := func(url string) view {
		res, err := http.Get(url + "/dashboard/api/nodes")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var v view
		if err := json.NewDecoder(res.Body).Decode(&v); err != nil || res.StatusCode != 200 {
			t.Fatalf("nodes: %d %v", res.StatusCode, err)
		}
		return v
	}
	held := func(v view) map[string]string {
		out := map[string]string{}
		for _, n := range v.Nodes {
			for _, l := range n.Holds {
				out[l.Name] = n.ID
			}
		}
		return out
	}
	var want map[string]string
	for _, p := range c.live() {
		deadline := time.Now().Add(30 * time.Second)
		for {
			v := read(p.url)
			got := held(v)
			want = c.leases(ctx)
			// Both nodes' heartbeats and every lease settle within a
			// few rounds; until then the view may show one node.
			settled := v.Cluster && len(v.Nodes) == 2 && v.Nodes[0].ID == a && v.Nodes[1].ID == b &&
				len(got) == clusterQueues+5 && fmt.Sprint(got) == fmt.Sprint(want) &&
				len(v.Nodes[0].Holds) > 0 && len(v.Nodes[1].Holds) > 0
			for _, n := range v.Nodes {
				// Live is the server's own judgement (a heartbeat within
				// the lease time); how many seconds ago is the machine's.
				settled = settled && n.Live && n.Age >= 0
			}
			if settled {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s says the nodes are %+v and the leases are held %v; the database: %v (want nodes %s and %s, both live)", p.url, v.Nodes, got, want, a, b)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// A speed-dating action on the node that does not run the events is
	// handed to the node that does, as the API's calls are.
	far := a
	if want[cluster.PairingLease] == a {
		far = b
	}
	c.mu.Lock()
	p := c.nodes[far]
	c.mu.Unlock()
	createPairingEvent(t, cupidv1connect.NewPairingServiceClient(http.DefaultClient, p.url), &cupidv1.CreateEventRequest{Id: "ball", Settings: &cupidv1.EventSettings{Rooms: 2, MinLobby: 3}})
	res, err := http.Post(p.url+"/dashboard/api/actions/event", "application/json", strings.NewReader(`{"event":"ball","action":"pause"}`))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Event  string `json:"event"`
		Paused bool   `json:"paused"`
	}
	_ = json.NewDecoder(res.Body).Decode(&got)
	res.Body.Close()
	if res.StatusCode != 200 || got.Event != "ball" || !got.Paused {
		t.Fatalf("pause through the far node: %d %+v", res.StatusCode, got)
	}
	if !getPairingEvent(t, cupidv1connect.NewPairingServiceClient(http.DefaultClient, p.url), "ball").GetPaused() {
		t.Fatal("the event is not paused")
	}
}
