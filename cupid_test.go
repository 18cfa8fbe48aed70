package cupid

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestAttributesJSONLikeMap pins the promise of Attributes.MarshalJSON: the
// bytes are those the map produced, so stored ticket bodies and JSON output
// do not change, and reading them back gives the same sorted slice.
func TestAttributesJSONLikeMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"mmr", "role", "a<b", "é", "", "z", "cross_platform", "level", "map", "x&y", "b", "c"}
	for i := 0; i < 300; i++ {
		m := map[string]Value{}
		for k := rng.IntN(len(names) + 1); k > 0; k-- {
			switch n := names[rng.IntN(len(names))]; rng.IntN(3) {
			case 0:
				m[n] = Number(rng.NormFloat64() * 1e3)
			case 1:
				m[n] = String(names[rng.IntN(len(names))])
			default:
				m[n] = Strings(names[:1+rng.IntN(3)]...)
			}
		}
		p := Player{ID: "p", Attributes: NewAttributes(m)}
		old := struct {
			ID         string           `json:"id"`
			Attributes map[string]Value `json:"attributes,omitempty"`
		}{"p", m}
		got, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(old)
		if string(got) != string(want) {
			t.Fatalf("marshal:\n got %s\nwant %s", got, want)
		}
		var back Player
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back.Attributes, p.Attributes) {
			t.Fatalf("round trip: %v, want %v", back.Attributes, p.Attributes)
		}
		if !reflect.DeepEqual(back.Attributes.Map(), old.Attributes) && len(m) > 0 {
			t.Fatalf("Map: %v, want %v", back.Attributes.Map(), m)
		}
		for _, n := range names {
			v, ok := p.Attributes.Get(n)
			w, wok := m[n]
			if ok != wok || !reflect.DeepEqual(v, w) {
				t.Fatalf("Get(%q) = %v %v, want %v %v", n, v, ok, w, wok)
			}
		}
	}
}

func TestAttributesUnmarshal(t *testing.T) {
	var a Attributes
	if err := json.Unmarshal([]byte(`{"b": {"kind": 2, "string": "x"}, "a": {"kind": 1, "number": 3}}`), &a); err != nil {
		t.Fatal(err)
	}
	if len(a) != 2 || a[0].Name != "a" || a[1].Name != "b" {
		t.Fatalf("not sorted: %v", a)
	}
	err := json.Unmarshal([]byte(`{"a": {"kind": 1}, "a": {"kind": 1}}`), &a)
	if err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("duplicate name: %v", err)
	}
	if err := json.Unmarshal([]byte(`null`), &a); err != nil || a != nil {
		t.Fatalf("null: %v %v", a, err)
	}
	if err := json.Unmarshal([]byte(`[1]`), &a); err == nil {
		t.Fatal("an array was accepted")
	}
}

func TestAttributesSetAndLongGet(t *testing.T) {
	var a Attributes
	m := map[string]Value{}
	for i := 30; i >= 0; i-- {
		n := string(rune('a' + i%26))
		if i >= 26 {
			n += "2"
		}
		a.Set(n, Number(float64(i)))
		m[n] = Number(float64(i))
	}
	a.Set("c", Number(-1))
	m["c"] = Number(-1)
	if !reflect.DeepEqual(a, NewAttributes(m)) {
		t.Fatalf("Set: %v", a)
	}
	for n, w := range m {
		if v, ok := a.Get(n); !ok || !reflect.DeepEqual(v, w) {
			t.Fatalf("Get(%q) = %v %v", n, v, ok)
		}
	}
	if _, ok := a.Get("zz"); ok {
		t.Fatal("found a missing name")
	}
}

// TestQualityPartsJSONLikeMap: Quality's JSON is the map's, byte for byte.
func TestQualityPartsJSONLikeMap(t *testing.T) {
	for _, m := range []map[string]float64{
		nil, {}, {"ping": 0.9}, {"wait": 1, "skill_gap": 0.123456789, "parties": 2.0 / 3, "roles": 0, "z<": 1e-9},
	} {
		var ps QualityParts
		if m != nil {
			ps = QualityParts{}
			for _, n := range SortedKeys(m) {
				ps = append(ps, QualityPart{Name: n, Score: m[n]})
			}
		}
		old := struct {
			Score float64            `json:"score"`
			Parts map[string]float64 `json:"parts,omitempty"`
		}{0.5, m}
		got, err := json.Marshal(Quality{Score: 0.5, Parts: ps})
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(old)
		if string(got) != string(want) {
			t.Fatalf("marshal:\n got %s\nwant %s", got, want)
		}
		gotRaw, _ := json.Marshal(ps)
		wantRaw, _ := json.Marshal(m)
		if string(gotRaw) != string(wantRaw) {
			t.Fatalf("marshal parts:\n got %s\nwant %s", gotRaw, wantRaw)
		}
		var back QualityParts
		if err := json.Unmarshal(gotRaw, &back); err != nil || !reflect.DeepEqual(back, ps) {
			t.Fatalf("round trip: %v %v, want %v", back, err, ps)
		}
		for n, w := range m {
			if v, ok := ps.Get(n); !ok || v != w {
				t.Fatalf("Get(%q) = %v %v", n, v, ok)
			}
		}
	}
}
