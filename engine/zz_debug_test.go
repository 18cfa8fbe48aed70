package engine

import "testing"

func TestZZDebug(t *testing.T) {
	ts := genEncounters(100000, t0, 42)
	mn, mx, sum := 1000, 0, 0
	bmx, bsum := 0, 0
	for _, tk := range ts {
		m, _ := tk.Players[0].Attributes.Get("met")
		b, _ := tk.Players[0].Attributes.Get("blocked")
		mn = min(mn, len(m.Strings))
		mx = max(mx, len(m.Strings))
		sum += len(m.Strings)
		bmx = max(bmx, len(b.Strings))
		bsum += len(b.Strings)
	}
	t.Log(mn, mx, sum/len(ts), bmx, bsum/len(ts))
	c := load(t, benchEncounterRules)
	p, _ := New(testKey, c, Options{})
	t.Log(p.Add(ts[0]))
}
