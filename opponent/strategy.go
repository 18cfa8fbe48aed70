package opponent

import (
	"math"
	"strconv"
	"strings"

	"github.com/cupid-match/cupid"
)

// strategySpec is a validated Strategy: which attributes hold its labels and
// how labels compare.
type strategySpec struct {
	name    string
	ranged  bool
	hard    bool
	attr    int // index into schema.attrs
	qattr   int // index into schema.qattrs
	kind    cupid.ValueKind
	maxDist float64
	order   map[string]int // ranks of string labels of a ranged strategy
}

// labelTable interns one strategy's label values. Labels compare by value:
// the key is the value's text, so the same label gets the same id and the
// same bucket key across restarts (no pointer or randomised hash involved).
// A table only grows when a bucket is created, so it is bounded by
// MaxBuckets.
type labelTable struct {
	ids   map[string]uint32
	vals  []cupid.Value
	boxed []any     // the value as the quality expression sees it
	rank  []float64 // position of a ranged label; unused for distinct ones
	text  []string  // the label as written in bucket keys
}

func newLabelTable() *labelTable {
	return &labelTable{ids: make(map[string]uint32)}
}

// labelKey is a label value's identity within one strategy.
func labelKey(v cupid.Value) string {
	if v.Kind == cupid.KindNumber {
		return strconv.FormatFloat(v.Number, 'g', -1, 64)
	}
	return v.String
}

// labelText writes a label for a bucket key: strings quoted so that any text
// stays unambiguous, numbers as shortest decimals.
func labelText(v cupid.Value) string {
	if v.Kind == cupid.KindNumber {
		return strconv.FormatFloat(v.Number, 'g', -1, 64)
	}
	return strconv.Quote(v.String)
}

// labelRank places a label on its strategy's line: the number itself, or the
// string's position in Order.
func (s *strategySpec) labelRank(v cupid.Value) float64 {
	if v.Kind == cupid.KindNumber {
		return v.Number
	}
	return float64(s.order[v.String])
}

func (t *labelTable) intern(s *strategySpec, v cupid.Value) uint32 {
	k := labelKey(v)
	if id, ok := t.ids[k]; ok {
		return id
	}
	id := uint32(len(t.vals))
	t.ids[strings.Clone(k)] = id
	if v.Kind == cupid.KindString {
		v.String = strings.Clone(v.String)
		t.boxed = append(t.boxed, v.String)
	} else {
		t.boxed = append(t.boxed, v.Number)
	}
	t.vals = append(t.vals, v)
	t.rank = append(t.rank, s.labelRank(v))
	t.text = append(t.text, labelText(v))
	return id
}

// groupKey is a bucket's labels from every additional strategy, as label ids;
// a fixed array so it is a map key without allocation.
type groupKey [maxStrategies]uint32

// group is one combination of labels: its MMR buckets, by MMR index (-1
// where no bucket exists yet).
type group struct {
	key     groupKey
	buckets []int32
}

// queryLabel is the attacker's label for one strategy.
type queryLabel struct {
	present bool
	id      uint32 // valid when known
	known   bool   // the label exists in the table
	rank    float64
}

// groupPenalty compares a group's labels with the attacker's, strategy by
// strategy. ok is false when a hard requirement fails. The penalties go to
// out (one per strategy): 0 for a preferred label, 1 for another distinct
// label, the distance for a ranged label.
func (f *Finder) groupPenalty(g *group, ql []queryLabel, out []float64) bool {
	for i := range f.s.strategies {
		st := &f.s.strategies[i]
		q := &ql[i]
		lid := g.key[i]
		p := 0.0
		switch {
		case !q.present:
			// Only a soft strategy may be left out of a query: no preference.
		case st.ranged:
			p = math.Abs(f.labels[i].rank[lid] - q.rank)
			if st.hard && p > st.maxDist {
				return false
			}
		default:
			if !q.known || q.id != lid {
				if st.hard {
					return false
				}
				p = 1
			}
		}
		out[i] = p
	}
	return true
}
