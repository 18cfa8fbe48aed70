package main

import (
	"strings"
	"testing"
)

// Bad flags are refused before anything is built or run, naming the flag.
func TestRunRefusesBadFlags(t *testing.T) {
	for _, c := range []struct {
		rounds int
		parts  string
		want   []string
	}{
		{0, "engine", []string{"-rounds", "at least 1", "0"}},
		{1, "engine,engin", []string{"-parts", `"engin"`}},
		{1, "", []string{"-parts", `""`}},
	} {
		err := run(c.rounds, c.parts)
		if err == nil {
			t.Errorf("run(%d, %q): no error", c.rounds, c.parts)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("run(%d, %q) = %q, want it to say %s", c.rounds, c.parts, err, w)
			}
		}
	}
}
