package pairing

import (
	"strings"
	"testing"
	"time"
)

func TestStatusAndKnown(t *testing.T) {
	e, _ := New(Config{Rooms: 1, Round: time.Minute, Countdown: 0, MinLobby: 2}, 1)
	ok := mustOK(t)
	if _, known := e.Status("a"); known || e.Known() != 0 {
		t.Fatal("an empty event knows someone")
	}
	ok(e.Join(t0, "a"))
	ok(e.Join(t0, "b"))
	ok(e.Join(t0, "c"))
	ok(e.EnterLobby(t0, "a"))
	ok(e.EnterLobby(t0, "b")) // a zero countdown: a and b are paired at once
	ok(e.Leave(t0, "c"))
	cases := []struct {
		key  string
		want Status
	}{
		{"a", Status{State: StateRoom, Room: 1, Partner: "b"}},
		{"b", Status{State: StateRoom, Room: 1, Partner: "a"}},
		{"c", Status{State: StateGone}},
	}
	for _, c := range cases {
		if got, known := e.Status(c.key); !known || got != c.want {
			t.Errorf("%s: %+v (known %v), want %+v", c.key, got, known, c.want)
		}
	}
	if e.Known() != 3 {
		t.Fatalf("knows %d people, want 3 (the one who left included)", e.Known())
	}
}

func TestCheckKey(t *testing.T) {
	for key, valid := range map[string]bool{
		"ann": true, "Ann Smith": true, "日本": true,
		"": false, "a\x00": false, "a\nb": false, "\xff": false, strings.Repeat("x", MaxKeyBytes+1): false, strings.Repeat("x", MaxKeyBytes): true,
	} {
		if err := CheckKey(key); (err == nil) != valid {
			t.Errorf("CheckKey(%q) = %v", key, err)
		}
	}
}
