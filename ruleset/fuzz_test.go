package ruleset

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// FuzzParse feeds arbitrary bytes through the whole loading path. Whatever
// the input: no panic; every problem of a rejected text has a position and a
// message; an accepted ruleset survives a round trip through encoding/json;
// and a compiled one's NextChange always moves forward and ends.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*/*.json")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"alliance": {"min_number": 1}, "filter": [{"name": "x", "expr": "1..2"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := Parse(data)
		if err != nil {
			ps, ok := err.(Problems)
			if !ok || len(ps) == 0 {
				t.Fatalf("Parse error is %T %v", err, err)
			}
			for _, p := range ps {
				if p.Line < 1 || p.Column < 1 || p.Message == "" {
					t.Fatalf("problem without position or message: %+v", p)
				}
			}
			return
		}
		out, err := json.Marshal(rs)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("re-reading %s: %v", out, err)
		}
		a, b := *rs, *again
		a.src, b.src = nil, nil
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("round trip differs:\n%+v\n%+v", a, b)
		}
		c, err := Compile(rs)
		if err != nil {
			if ps, ok := err.(Problems); !ok || len(ps) == 0 {
				t.Fatalf("Compile error is %T %v", err, err)
			}
			return
		}
		wait := time.Duration(0)
		for i := 0; ; i++ {
			next, ok := c.NextChange(wait)
			if !ok {
				break
			}
			if next <= wait {
				t.Fatalf("NextChange(%v) = %v", wait, next)
			}
			if i > 100_000 {
				t.Fatal("NextChange does not end")
			}
			wait = next
		}
	})
}
