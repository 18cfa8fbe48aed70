package encountersvc

import (
	"context"
	"strings"
	"testing"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/encounter"
	"github.com/cupid-match/cupid/memstore"
)

// TestCheckJoin: a player is refused a group that holds someone he
// blocked or who blocked him, whatever their order; blocks among the
// members, and avoid entries, do not count; the refusal names neither
// the member nor the block.
func TestCheckJoin(t *testing.T) {
	ctx := context.Background()
	s, err := New(Options{Store: memstore.New()})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range [][3]string{{"ann", encounter.KindBlock, "bob"}, {"cat", encounter.KindBlock, "ann"},
		{"dan", encounter.KindBlock, "eve"}, {"fay", encounter.KindAvoid, "ann"}} {
		if _, err := s.Put(ctx, e[0], e[1], e[2], 0); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		player  string
		members []string
		refused bool
	}{
		{"bob", []string{"ann"}, true},                // a member blocked him
		{"ann", []string{"zed", "bob"}, true},         // he blocked a member
		{"ann", []string{"cat"}, true},                // blocked by the member
		{"zed", []string{"dan", "eve"}, false},        // the members' own block
		{"fay", []string{"ann"}, false},               // an avoid is a preference
		{"bob", nil, false},                           // an empty group
		{"ann", []string{"ann", "zed"}, false},        // himself
		{"gus", []string{"ann", "bob", "cat"}, false}, // no entry of his
	} {
		err := s.CheckJoin(ctx, tc.player, tc.members, "party p1")
		if got := err != nil; got != tc.refused {
			t.Errorf("%s joining %v: %v, refused %v", tc.player, tc.members, err, tc.refused)
			continue
		}
		if err == nil {
			continue
		}
		if cupid.ErrorCode(err) != cupid.CodeDenied {
			t.Errorf("%s joining %v: code %s, want permission denied", tc.player, tc.members, cupid.ErrorCode(err))
		}
		for _, m := range tc.members {
			if strings.Contains(err.Error(), m) {
				t.Errorf("%s joining %v: the refusal %q names %s", tc.player, tc.members, err, m)
			}
		}
	}
}
