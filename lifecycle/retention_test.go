package lifecycle

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// Retention lets go only what ended before the horizon: every state of a
// ticket and a match, with its match's state for a matched ticket.
func TestAged(t *testing.T) {
	before := time.Date(2026, 1, 8, 0, 0, 0, 0, time.UTC)
	old, young := before.Add(-time.Hour), before.Add(time.Hour)
	for _, c := range []struct {
		name string
		kind cupid.RetentionKind
		c    Candidate
		want bool
	}{
		{"waiting ticket, however old", cupid.RetainTickets, Candidate{State: "waiting", At: old}, false},
		{"cancelled long ago", cupid.RetainTickets, Candidate{State: "cancelled", At: old}, true},
		{"expired lately", cupid.RetainTickets, Candidate{State: "expired", At: young}, false},
		{"matched, match live", cupid.RetainTickets, Candidate{State: "matched", At: old, MatchState: cupid.MatchAssigned, MatchAt: old}, false},
		{"matched, match pending", cupid.RetainTickets, Candidate{State: "matched", At: old, MatchState: cupid.MatchPending, MatchAt: old}, false},
		{"matched, match ended lately", cupid.RetainTickets, Candidate{State: "matched", At: old, MatchState: cupid.MatchEnded, MatchAt: young}, false},
		{"matched, match ended long ago", cupid.RetainTickets, Candidate{State: "matched", At: old, MatchState: cupid.MatchEnded, MatchAt: old}, true},
		{"matched, match gone", cupid.RetainTickets, Candidate{State: "matched", At: old}, true},
		{"formed match", cupid.RetainMatches, Candidate{State: string(cupid.MatchFormed), At: old}, false},
		{"released match", cupid.RetainMatches, Candidate{State: string(cupid.MatchReleased), At: old}, true},
		{"ended match, lately", cupid.RetainMatches, Candidate{State: string(cupid.MatchEnded), At: young}, false},
		{"rating history line", cupid.RetainRatingHistory, Candidate{At: old}, true},
		{"rating result, lately", cupid.RetainRatingResults, Candidate{At: young}, false},
		{"an unknown kind", "nope", Candidate{At: old}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Aged(c.kind, c.c, before); got != c.want {
				t.Fatalf("Aged = %v, want %v", got, c.want)
			}
		})
	}
	cs := []Candidate{{ID: "a", State: "cancelled", At: old}, {ID: "b", State: "waiting", At: old}, {ID: "c", State: "expired", At: old}}
	if got := AgedIDs(cupid.RetainTickets, cs, before); !slices.Equal(got, []string{"a", "c"}) {
		t.Fatalf("AgedIDs = %v", got)
	}
}

func TestCheckPrune(t *testing.T) {
	for _, c := range []struct {
		req   cupid.PruneRequest
		field string
	}{
		{cupid.PruneRequest{Kind: cupid.RetainTickets, Limit: 10}, ""},
		{cupid.PruneRequest{Kind: "nope", Limit: 10}, "kind"},
		{cupid.PruneRequest{Kind: cupid.RetainMatches}, "limit"},
		{cupid.PruneRequest{Kind: cupid.RetainTickets, Limit: 10, Select: true}, ""},
		{cupid.PruneRequest{Kind: cupid.RetainTickets, Limit: 10, Only: []string{}}, ""},
		{cupid.PruneRequest{Kind: cupid.RetainTickets, Limit: 10, Select: true, Only: []string{"a"}}, "only"},
	} {
		err := CheckPrune(c.req)
		if c.field == "" {
			if err != nil {
				t.Errorf("%+v: %v", c.req, err)
			}
			continue
		}
		var e *cupid.Error
		if !errors.As(err, &e) || e.Field != c.field || e.Code != cupid.CodeInvalid {
			t.Errorf("%+v: %v, want invalid %s", c.req, err, c.field)
		}
	}
}

// A batch that follows an export removes what Aged chooses among the rows
// exported, and nothing else.
func TestPruneIDs(t *testing.T) {
	before := time.Date(2026, 1, 8, 0, 0, 0, 0, time.UTC)
	old := before.Add(-time.Hour)
	cs := []Candidate{{ID: "a", State: "cancelled", At: old}, {ID: "b", State: "waiting", At: old},
		{ID: "c", State: "expired", At: old}, {ID: "d", State: "cancelled", At: old}}
	for _, c := range []struct {
		name string
		only []string
		want []string
	}{
		{"no export: every aged row", nil, []string{"a", "c", "d"}},
		{"the rows exported", []string{"a", "c", "d"}, []string{"a", "c", "d"}},
		{"a row aged since the export stays", []string{"a", "d"}, []string{"a", "d"}},
		{"an exported row that came back to life stays", []string{"a", "b"}, []string{"a"}},
		{"nothing exported, nothing removed", []string{}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := PruneIDs(cupid.PruneRequest{Kind: cupid.RetainTickets, Before: before, Limit: 10, Only: c.only}, cs)
			if !slices.Equal(got, c.want) {
				t.Fatalf("PruneIDs = %v, want %v", got, c.want)
			}
		})
	}
}

func TestPruneKind(t *testing.T) {
	kinds := []string{"tickets", "matches"}
	kindOf := func(k string) cupid.RetentionKind { return cupid.RetentionKind(k) }
	for _, c := range []struct {
		name string
		req  cupid.PruneRequest
		want string // the kind found, or the error's words
	}{
		{"a kind the store keeps", cupid.PruneRequest{Kind: cupid.RetainMatches, Limit: 10}, "matches"},
		{"a kind it keeps no table for", cupid.PruneRequest{Kind: cupid.RetainEncounters, Limit: 10}, `retention kind "encounters" has no table here`},
		{"no such kind", cupid.PruneRequest{Kind: "nope", Limit: 10}, `no retention kind "nope"`},
		{"no rows", cupid.PruneRequest{Kind: cupid.RetainTickets}, "limit: must be positive"},
	} {
		t.Run(c.name, func(t *testing.T) {
			k, err := PruneKind(c.req, kinds, kindOf)
			got := k
			if err != nil {
				got = err.Error()
			}
			if !strings.Contains(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
