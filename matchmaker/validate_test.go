package matchmaker

import (
	"strings"
	"testing"

	"github.com/cupid-match/cupid"
)

// TestCheckAttributesOrder: the engine looks attributes up by binary search,
// so a Go caller's hand-built, unsorted or duplicated list is refused here
// rather than silently misread later.
func TestCheckAttributesOrder(t *testing.T) {
	n := cupid.Number(1)
	for _, c := range []struct {
		name  string
		attrs cupid.Attributes
		want  string
	}{
		{"none", nil, ""},
		{"sorted", cupid.Attributes{{Name: "a", Value: n}, {Name: "b", Value: n}}, ""},
		{"unsorted", cupid.Attributes{{Name: "b", Value: n}, {Name: "a", Value: n}}, "attributes.a"},
		{"twice", cupid.Attributes{{Name: "a", Value: n}, {Name: "a", Value: n}}, "attributes.a"},
	} {
		err := checkAttributes("attributes", c.attrs)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
