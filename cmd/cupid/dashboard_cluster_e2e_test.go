package main

import (
	"context"
	"encoding/json"
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
	c.waitCovered(ctx, time.Now())
	want := c.leases(ctx)
	var view struct {
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
	for _, p := range c.live() {
		res, err := http.Get(p.url + "/dashboard/api/nodes")
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(res.Body).Decode(&view)
		res.Body.Close()
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("nodes: %d %v", res.StatusCode, err)
		}
		if !view.Cluster || len(view.Nodes) != 2 || view.Nodes[0].ID != a || view.Nodes[1].ID != b {
			t.Fatalf("%s says the nodes are %+v, want %s and %s", p.url, view.Nodes, a, b)
		}
		got := map[string]string{}
		for _, n := range view.Nodes {
			if !n.Live || n.Age > 1 {
				t.Fatalf("node %s: live %v, heartbeat %v s ago (lease time 1 s)", n.ID, n.Live, n.Age)
			}
			for _, l := range n.Holds {
				got[l.Name] = n.ID
			}
		}
		// Leases may move between the two reads only if a node stopped
		// renewing, which none does here.
		if len(got) != clusterQueues+3 || got[cluster.PairingLease] != want[cluster.PairingLease] || got["q0"] != want["q0"] {
			t.Fatalf("%s says the leases are held %v, the database %v", p.url, got, want)
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
