package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cupid-match/cupid"
)

// A duel queue whose latency range starts at 60 ms and grows 20 ms every
// 10 s up to 200 ms.
const offersRules = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
	"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 200}],
	"region_latency_initial_range_ms": 60, "region_expansion_range_ms": 20, "region_expansion_rate_ms": 10000,
	"region_latency_max_ms": 200}`

func TestOffers(t *testing.T) {
	type tk struct {
		id   string
		mmr  float64
		lats []any
	}
	for _, tc := range []struct {
		name   string
		others []tk
		me     []any
		wait   float64
		want   []Offer // ID, Extra, Adds, Forms, Reached (s after creation; 0: none)
	}{
		{
			name:   "a region beyond the range with a candidate there",
			others: []tk{{"eu", 1500, []any{"eu-west", 30}}},
			me:     []any{"us-east", 50, "eu-west", 100},
			wait:   1,
			want:   []Offer{{ID: "latency:eu-west", Extra: 40, Adds: 1, Forms: true, Reached: at(20)}},
		},
		{
			name:   "the ticket reaches no region yet: the offer lets it anchor",
			others: []tk{{"eu", 1500, []any{"eu-west", 30}}, {"as", 1500, []any{"ap-east", 40}}},
			me:     []any{"eu-west", 90, "ap-east", 150},
			wait:   0,
			want: []Offer{
				{ID: "latency:eu-west", Extra: 30, Adds: 1, Forms: true, Reached: at(20)},
				{ID: "latency:ap-east", Extra: 90, Adds: 1, Forms: true, Reached: at(50)},
			},
		},
		{
			name:   "nobody plays there: no offer",
			others: []tk{{"us", 1500, []any{"us-east", 30}}},
			me:     []any{"eu-west", 30, "ap-east", 120},
			wait:   1,
			want:   nil,
		},
		{
			name:   "the candidate there is too far in skill: no offer",
			others: []tk{{"eu", 2500, []any{"eu-west", 30}}},
			me:     []any{"us-east", 50, "eu-west", 100},
			wait:   1,
			want:   nil,
		},
		{
			name:   "the region is already within the range: nothing to offer",
			others: []tk{{"eu", 1500, []any{"eu-west", 30}}},
			me:     []any{"eu-west", 50},
			wait:   1,
			want:   nil,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPool(t, offersRules)
			for _, o := range tc.others {
				ticket(o.id, 0).num("mmr", o.mmr).lat(o.lats...).add(t, p)
			}
			p.Step(at(0))
			ticket("me", 0).num("mmr", 1500).lat(tc.me...).add(t, p)
			x, ok := p.Explain("me", at(tc.wait))
			if !ok {
				t.Fatal("not in the pool")
			}
			if len(x.Offers) != len(tc.want) {
				t.Fatalf("offers %+v, want %d", x.Offers, len(tc.want))
			}
			for i, w := range tc.want {
				g := x.Offers[i]
				if g.ID != w.ID || g.Extra != w.Extra || g.Adds != w.Adds || g.Forms != w.Forms || !g.Reached.Equal(w.Reached) {
					t.Errorf("offer %d: %+v, want %+v", i, g, w)
				}
				if g.Latency != 60 || g.Text == "" {
					t.Errorf("offer %d: latency %d (want the range, 60 ms), text %q", i, g.Latency, g.Text)
				}
			}
		})
	}
}

// TestOfferTakenMatches: the ticket rewritten as its offer says, added
// back with its creation time, is matched at the next step, and has
// lost none of its age.
func TestOfferTakenMatches(t *testing.T) {
	p := newPool(t, offersRules)
	ticket("eu", 0).num("mmr", 1500).lat("eu-west", 30).add(t, p)
	me := ticket("me", 0).num("mmr", 1500).lat("us-east", 50, "eu-west", 100).add(t, p)
	if got := matchIDs(p.Step(at(1))); len(got) != 0 {
		t.Fatalf("matched before the offer: %v", got)
	}
	x, _ := p.Explain("me", at(2))
	if len(x.Offers) != 1 {
		t.Fatalf("offers %+v", x.Offers)
	}
	o := x.Offers[0]
	changed := *me
	changed.Latencies = map[string]int32{"us-east": 50, o.Region: o.Latency}
	if !p.Remove("me") {
		t.Fatal("remove")
	}
	if err := p.Add(&changed); err != nil {
		t.Fatal(err)
	}
	props := p.Step(at(2))
	if len(props) != 1 {
		t.Fatalf("after the offer: %v", matchIDs(props))
	}
	if props[0].Match().Region != "eu-west" {
		t.Errorf("hosted in %q", props[0].Match().Region)
	}
	for i, tk := range props[0].Tickets() {
		if tk.ID == "me" && props[0].CreatedAt(i) != at(0) {
			t.Errorf("the ticket's age counts from %v, want its creation", props[0].CreatedAt(i))
		}
	}
}

// BenchmarkExplainWithOffers: "why" of a ticket with two regions beyond
// the range, in a pool of 20,000 waiting tickets over four regions (the
// most Explain examines), and the offers' share of it.
func BenchmarkExplainWithOffers(b *testing.B) {
	p := newPool(b, offersRules)
	regions := []string{"eu-west", "us-east", "ap-east", "sa-east"}
	for i := range 20000 {
		ticket(fmt.Sprintf("t%d", i), 0).num("mmr", float64(1000+i%1000)).lat(regions[i%4], 20+i%30, regions[(i+1)%4], 120+i%50).add(b, p)
	}
	// No step: all 20,000 wait, as in a pool of compatible-only-later
	// tickets.
	ticket("me", 0).num("mmr", 1500).lat("eu-west", 100, "us-east", 150).add(b, p)
	x, _ := p.Explain("me", at(1))
	if len(x.Offers) != 2 {
		b.Fatalf("offers %+v", x.Offers)
	}
	b.Run("explain", func(b *testing.B) {
		for b.Loop() {
			p.Explain("me", at(1))
		}
	})
	b.Run("offers", func(b *testing.B) {
		a, _ := p.lookupID("me")
		env := &p.r.envs[p.r.level(time.Second)]
		others := p.explainSet(a)
		base := p.tally(a, env, at(1), others)
		for b.Loop() {
			p.offers(a, env, at(1), others, base)
		}
	})
}

// A duel queue where players choose the game modes they accept.
const modesRules = `{"alliance": {"min_number": 2, "max_number": 2, "player_min_number": 1, "player_max_number": 1},
	"matching_rule": [{"attribute": "mmr", "criteria": "distance", "reference": 200}],
	"match_options": {"options": [{"name": "mode", "type": "any"}]}}`

func TestOptionOffers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		others [][]string // each another ticket's modes (mmr 1500)
		me     []string
		want   []string // offer ids, best first
		adds   []int
	}{
		{"the mode most others play first", [][]string{{"ctf"}, {"ctf", "koth"}, {"koth"}, {"ctf"}}, []string{"dm"},
			[]string{"option:mode=ctf", "option:mode=koth"}, []int{3, 2}},
		{"nobody refused: no offer", [][]string{{"dm", "ctf"}}, []string{"dm"}, nil, nil},
		{"at most two values of an option", [][]string{{"a"}, {"b"}, {"c"}, {"c"}}, []string{"dm"},
			[]string{"option:mode=c", "option:mode=a"}, []int{2, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPool(t, modesRules)
			me := ticket("me", 0).num("mmr", 1500).opt("mode", tc.me...).add(t, p)
			for i, modes := range tc.others {
				ticket(fmt.Sprintf("o%d", i), 1).num("mmr", 1500).opt("mode", modes...).add(t, p)
			}
			x, _ := p.Explain("me", at(2))
			var got []string
			for i, o := range x.Offers {
				got = append(got, o.ID)
				if i < len(tc.adds) && (o.Adds != tc.adds[i] || !o.Forms || o.Option != "mode" || o.Value == "") {
					t.Errorf("offer %+v, want %d candidates and a match", o, tc.adds[i])
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("offers %v, want %v", got, tc.want)
			}
			// Computing the offers left the ticket's own choices as they were.
			if again, _ := p.Explain("me", at(2)); again.Compatible != x.Compatible || fmt.Sprint(again.Offers) != fmt.Sprint(x.Offers) {
				t.Errorf("a second explanation differs: %+v, then %+v", x, again)
			}
			if len(tc.want) == 0 {
				return
			}
			// Taken: the mode added to the ticket, the engine matches it.
			changed := *me
			changed.Attributes = cupid.NewAttributes(map[string]cupid.Value{"mode": cupid.Strings(append(tc.me, x.Offers[0].Value)...)})
			p.Remove("me")
			if err := p.Add(&changed); err != nil {
				t.Fatal(err)
			}
			props := p.Step(at(3))
			found := false
			for _, id := range matchIDs(props) {
				found = found || strings.Contains(id, "me")
			}
			if !found {
				t.Errorf("not matched after taking the offer: %v", matchIDs(props))
			}
		})
	}
}
