package ruleset

import (
	"reflect"
	"testing"
	"time"
)

// TestSeedMMRFlexing: the free-for-all of AccelByte's match rulesets widens
// the MMR reference from 200 to 300, 400 and 500 at 15, 30 and 45 seconds.
func TestSeedMMRFlexing(t *testing.T) {
	c := loadFile(t, "testdata/accelbyte/17_ffa_mmr_flexing.json")
	tests := []struct {
		wait time.Duration
		ref  float64
		next time.Duration
		ok   bool
	}{
		{0, 200, 15 * time.Second, true},
		{15*time.Second - 1, 200, 15 * time.Second, true},
		{15 * time.Second, 300, 30 * time.Second, true},
		{40 * time.Second, 400, 45 * time.Second, true},
		{45 * time.Second, 500, 0, false},
		{time.Hour, 500, 0, false},
	}
	for _, tt := range tests {
		if got := c.ReferenceAt(0, tt.wait); got != tt.ref {
			t.Errorf("ReferenceAt(%v) = %v, want %v", tt.wait, got, tt.ref)
		}
		next, ok := c.NextChange(tt.wait)
		if next != tt.next || ok != tt.ok {
			t.Errorf("NextChange(%v) = %v, %v; want %v, %v", tt.wait, next, ok, tt.next, tt.ok)
		}
	}
}

// TestSeedAllianceFlexing: five players per team are needed until 60 s,
// three after.
func TestSeedAllianceFlexing(t *testing.T) {
	c := loadFile(t, "testdata/accelbyte/02_alliance_flexing.json")
	if got := c.AllianceAt(59 * time.Second).PlayerMinNumber; got != 5 {
		t.Errorf("player_min_number at 59 s = %d, want 5", got)
	}
	want := Alliance{MinNumber: 2, MaxNumber: 2, PlayerMinNumber: 3, PlayerMaxNumber: 5}
	if got := c.AllianceAt(60 * time.Second); got != want {
		t.Errorf("alliance at 60 s = %+v, want %+v", got, want)
	}
	if next, ok := c.NextChange(0); !ok || next != time.Minute {
		t.Errorf("NextChange(0) = %v, %v", next, ok)
	}
}

// TestAllianceInheritance: a flexing step that leaves a number out keeps
// the previous step's value.
func TestAllianceInheritance(t *testing.T) {
	rs := &Ruleset{
		Alliance: Alliance{MinNumber: 2, MaxNumber: 4, PlayerMinNumber: 5, PlayerMaxNumber: 5},
		AllianceFlexingRule: []AllianceFlex{
			{Duration: 10, Alliance: Alliance{MinNumber: 2}}, // changes nothing: no step
			{Duration: 20, Alliance: Alliance{PlayerMinNumber: 4}},
			{Duration: 30, Alliance: Alliance{MinNumber: 1}},
		},
	}
	c, err := Compile(rs)
	if err != nil {
		t.Fatal(err)
	}
	want := []AllianceStep{
		{0, Alliance{2, 4, 5, 5}},
		{20 * time.Second, Alliance{2, 4, 4, 5}},
		{30 * time.Second, Alliance{1, 4, 4, 5}},
	}
	if !reflect.DeepEqual(c.Alliance, want) {
		t.Errorf("steps = %+v\nwant    %+v", c.Alliance, want)
	}
}

func TestSchedule(t *testing.T) {
	s := flexSchedule(10, []Flex{{Duration: 5, Value: 10}, {Duration: 10, Value: 20}, {Duration: 20, Value: 30}})
	want := Schedule{{0, 10}, {10 * time.Second, 20}, {20 * time.Second, 30}}
	if !reflect.DeepEqual(s, want) {
		t.Fatalf("schedule = %v, want %v (a step that changes nothing is dropped)", s, want)
	}
	tests := []struct {
		wait time.Duration
		at   float64
		next time.Duration
		ok   bool
	}{
		{-time.Second, 10, 10 * time.Second, true},
		{0, 10, 10 * time.Second, true},
		{10 * time.Second, 20, 20 * time.Second, true},
		{25 * time.Second, 30, 0, false},
	}
	for _, tt := range tests {
		if got := s.At(tt.wait); got != tt.at {
			t.Errorf("At(%v) = %v, want %v", tt.wait, got, tt.at)
		}
		if next, ok := s.Next(tt.wait); next != tt.next || ok != tt.ok {
			t.Errorf("Next(%v) = %v, %v; want %v, %v", tt.wait, next, ok, tt.next, tt.ok)
		}
	}
	if s.Final() != 30 {
		t.Errorf("Final = %v", s.Final())
	}
}

// TestNextChangeWalk follows NextChange from 0 through every relaxation of
// a ruleset using every kind of flexing, and checks it stops at each one
// exactly once.
func TestNextChangeWalk(t *testing.T) {
	c := loadFile(t, "testdata/cupid/full.json")
	var got []time.Duration
	wait := time.Duration(0)
	for range 100 {
		next, ok := c.NextChange(wait)
		if !ok {
			break
		}
		if next <= wait {
			t.Fatalf("NextChange(%v) = %v does not move forward", wait, next)
		}
		got = append(got, next)
		wait = next
	}
	var want []time.Duration
	// latency 5,10,15,20 (cap 150 ms); mmr 15,30; level 45; team rule
	// 30,60; match total 40; filter off at 45; alliance 90; comparison
	// 60; bidirectional off at 60; healer quota 120.
	for _, s := range []int{5, 10, 15, 20, 30, 40, 45, 60, 90, 120} {
		want = append(want, time.Duration(s)*time.Second)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("changes at %v\nwant       %v", got, want)
	}
}
