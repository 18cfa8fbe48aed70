package cupid

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// fullMatch has every field of Match, and of what it holds, set.
func fullMatch() *Match {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return &Match{
		ID: "m1", Key: QueueKey{Queue: "duel", Version: "v2", Custom: "eu"},
		Teams:   []Team{{TicketIDs: []string{"t1"}, PlayerIDs: []string{"a", "b"}}, {TicketIDs: []string{"t2"}, PlayerIDs: []string{"c"}}},
		Quality: Quality{Score: 0.9, Parts: QualityParts{{Name: "skill_gap", Score: 0.8}}}, CreatedAt: at,
		Region: "eu-west", Roles: map[string]string{"a": "tank"}, AcceptBy: at.Add(time.Minute),
		Seats: []int{2, 2}, Backfill: true, Left: []Leaver{{PlayerID: "d", Team: 1, At: at, Replaced: true}},
		BackfillOptions: map[string][]string{"map": {"castle", "forest"}},
		ServerPlayers: []Player{{ID: "e", Attributes: Attributes{
			{Name: "mmr", Value: Value{Kind: KindNumber, Number: 1500}},
			{Name: "modes", Value: Value{Kind: KindStrings, Strings: []string{"ranked"}}},
			{Name: "skills", Value: Value{Kind: KindNumbers, Map: map[string]float64{"sword": 10}}},
		}}},
	}
}

func TestCloneCopiesEveryField(t *testing.T) {
	m := fullMatch()
	// Every field set: a field added to Match and left zero here (and,
	// likely, in Clone) fails this first.
	v := reflect.ValueOf(*m)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Errorf("fullMatch leaves %s zero: set it, and copy it in Clone", v.Type().Field(i).Name)
		}
	}
	c := m.Clone()
	if !reflect.DeepEqual(c, m) {
		t.Fatalf("clone\n%+v\nwant\n%+v", c, m)
	}
	// As the JSON round trip the stores used to copy with.
	b, _ := json.Marshal(m)
	var j Match
	if err := json.Unmarshal(b, &j); err != nil {
		t.Fatal(err)
	}
	if cb, _ := json.Marshal(c); string(cb) != string(b) {
		t.Errorf("clone encodes as\n%s\nwant\n%s", cb, b)
	}
	// Nothing shared: changing every piece of the clone leaves m as it was.
	c.Teams[0].TicketIDs[0], c.Teams[0].PlayerIDs[0] = "x", "x"
	c.Quality.Parts[0].Score = 0
	c.Roles["a"] = "healer"
	c.Seats[0] = 9
	c.Left[0].PlayerID = "x"
	c.BackfillOptions["map"][0] = "x"
	c.ServerPlayers[0].ID = "x"
	c.ServerPlayers[0].Attributes[1].Value.Strings[0] = "x"
	c.ServerPlayers[0].Attributes[2].Value.Map["sword"] = 0
	if !reflect.DeepEqual(m, fullMatch()) {
		t.Errorf("changing the clone changed the match:\n%+v", m)
	}
	if (*Match)(nil).Clone() != nil {
		t.Error("a nil match cloned to a match")
	}
}

// BenchmarkMatchClone: a one-against-one match and a full one, copied by
// Clone and by decoding the JSON a store writes anyway.
func BenchmarkMatchClone(b *testing.B) {
	duel := &Match{ID: "m1", Key: QueueKey{Queue: "duel"}, CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Teams:   []Team{{TicketIDs: []string{"t1"}, PlayerIDs: []string{"a"}}, {TicketIDs: []string{"t2"}, PlayerIDs: []string{"b"}}},
		Quality: Quality{Score: 0.9, Parts: QualityParts{{Name: "skill_gap", Score: 0.8}, {Name: "wait", Score: 1}}}}
	for _, c := range []struct {
		name string
		m    *Match
	}{{"duel", duel}, {"full", fullMatch()}} {
		body, _ := json.Marshal(c.m)
		b.Run(c.name+"/Clone", func(b *testing.B) {
			for b.Loop() {
				_ = c.m.Clone()
			}
		})
		b.Run(c.name+"/JSON", func(b *testing.B) {
			for b.Loop() {
				var m Match
				_ = json.Unmarshal(body, &m)
			}
		})
	}
}
