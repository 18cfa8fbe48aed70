package opponent

import (
	"fmt"

	"github.com/cupid-match/cupid"
)

// attrSpec is one declared attribute and where a cached entry keeps it.
type attrSpec struct {
	name   string
	kind   cupid.ValueKind
	envKey string // its name in the quality expression: "player.x" or "query.x"
	// col numbers its column among the number or among the ref (string
	// and list) columns; -1 when the attribute is a strategy label, which
	// the bucket itself holds. off is where the column sits in a row.
	col   int
	off   int
	label int // the strategy whose label it is, or -1
}

// schema is a validated, defaulted Config turned into the lookups the hot
// paths need. It never changes after New.
type schema struct {
	cfg        Config
	attrs      []attrSpec
	attrIndex  map[string]int
	qattrs     []attrSpec
	qattrIndex map[string]int
	numCols    int
	refCols    int
	refKind    []cupid.ValueKind // per ref column: string or strings
	refOff     int               // row offset of the first ref column
	rowWords   int               // words per row: hash, MMR, numbers, refs
	strategies []strategySpec

	removeLevel float64 // fill level at or above which an offered entry leaves
	ignoreLevel float64 // fill level at or above which new entries are ignored
	mmrWidth    float64
	quality     *exprQuality // nil when the default or QualityFunc judges
}

// reserved names cannot be declared as attributes: the expressions use them.
var reserved = map[string]bool{"mmr": true, "id": true}

func kindOf(t string) (cupid.ValueKind, bool) {
	switch t {
	case TypeNumber:
		return cupid.KindNumber, true
	case TypeString:
		return cupid.KindString, true
	case TypeStrings:
		return cupid.KindStrings, true
	}
	return 0, false
}

// isIdent reports whether name can be written after "player." in an
// expression.
func isIdent(name string) bool {
	if name == "" {
		return false
	}
	for i, r := range name {
		letter := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		digit := r >= '0' && r <= '9'
		if !letter && !(digit && i > 0) {
			return false
		}
	}
	return true
}

func buildAttrs(field, prefix string, decl []Attribute) ([]attrSpec, map[string]int, error) {
	if len(decl) > maxAttributes {
		return nil, nil, invalid(field, "at most %d attributes, got %d", maxAttributes, len(decl))
	}
	specs := make([]attrSpec, len(decl))
	index := make(map[string]int, len(decl))
	for i, a := range decl {
		f := fmt.Sprintf("%s[%d]", field, i)
		if !isIdent(a.Name) {
			return nil, nil, invalid(f+".name", "must be a name of letters, digits and _ not starting with a digit, got %q", a.Name)
		}
		if reserved[a.Name] {
			return nil, nil, invalid(f+".name", "%q is reserved", a.Name)
		}
		if _, dup := index[a.Name]; dup {
			return nil, nil, invalid(f+".name", "%q is declared twice", a.Name)
		}
		k, ok := kindOf(a.Type)
		if !ok {
			return nil, nil, invalid(f+".type", "must be %q, %q or %q, got %q", TypeNumber, TypeString, TypeStrings, a.Type)
		}
		specs[i] = attrSpec{name: a.Name, kind: k, envKey: prefix + a.Name, col: -1, label: -1}
		index[a.Name] = i
	}
	return specs, index, nil
}

// compileConfig validates a config and builds its schema. Every error names
// the field it concerns.
func compileConfig(c Config) (*schema, error) {
	c = c.WithDefaults()
	if err := c.validateFields(); err != nil {
		return nil, err
	}
	s := &schema{cfg: c}
	s.removeLevel, _ = c.PlayerRemoveAfterCandidateOfferThreshold.level()
	s.ignoreLevel, _ = c.PlayerIgnoreUpdateInsertThreshold.level()
	s.mmrWidth = (c.MaxMMR - c.MinMMR) / float64(c.MmrBucketCount)
	if !(s.mmrWidth > 0) {
		return nil, invalid("mmr_bucket_count", "too many buckets for the MMR span")
	}
	var err error
	if s.attrs, s.attrIndex, err = buildAttrs("attributes", "player.", c.Attributes); err != nil {
		return nil, err
	}
	if s.qattrs, s.qattrIndex, err = buildAttrs("query_attributes", "query.", c.QueryAttributes); err != nil {
		return nil, err
	}
	if err := s.buildStrategies(); err != nil {
		return nil, err
	}
	for i := range s.attrs {
		a := &s.attrs[i]
		switch {
		case a.label >= 0:
			// Held by the bucket; no per-entry column.
		case a.kind == cupid.KindNumber:
			a.col = s.numCols
			s.numCols++
		default:
			a.col = s.refCols
			s.refCols++
			s.refKind = append(s.refKind, a.kind)
		}
	}
	s.refOff = rowAttrs + 2*s.numCols
	s.rowWords = s.refOff + s.refCols
	for i := range s.attrs {
		a := &s.attrs[i]
		switch {
		case a.label >= 0:
		case a.kind == cupid.KindNumber:
			a.off = rowAttrs + 2*a.col
		default:
			a.off = s.refOff + a.col
		}
	}
	if s.quality, err = compileQuality(s); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *schema) buildStrategies() error {
	c := &s.cfg
	if len(c.Strategies) > maxStrategies {
		return invalid("strategies", "at most %d strategies, got %d", maxStrategies, len(c.Strategies))
	}
	names := make(map[string]bool)
	for i, st := range c.Strategies {
		f := fmt.Sprintf("strategies[%d]", i)
		if !isIdent(st.Name) {
			return invalid(f+".name", "must be a name of letters, digits and _, got %q", st.Name)
		}
		if st.Name == "mmr" || names[st.Name] {
			return invalid(f+".name", "%q is already used", st.Name)
		}
		names[st.Name] = true
		spec := strategySpec{name: st.Name, hard: st.Hard}
		switch st.Kind {
		case KindDistinct:
		case KindRanged:
			spec.ranged = true
		default:
			return invalid(f+".kind", "unknown label type %q: must be %q or %q", st.Kind, KindDistinct, KindRanged)
		}
		ai, ok := s.attrIndex[st.Attribute]
		if !ok {
			return invalid(f+".attribute", "%q is not a declared attribute", st.Attribute)
		}
		a := &s.attrs[ai]
		if a.kind == cupid.KindStrings {
			return invalid(f+".attribute", "%q is a string list; a label must be a string or a number", st.Attribute)
		}
		qname := st.QueryAttribute
		if qname == "" {
			qname = st.Attribute
		}
		qi, ok := s.qattrIndex[qname]
		if !ok {
			return invalid(f+".query_attribute", "%q is not a declared query attribute", qname)
		}
		if s.qattrs[qi].kind != a.kind {
			return invalid(f+".query_attribute", "%q must have the type of attribute %q", qname, st.Attribute)
		}
		spec.attr, spec.qattr, spec.kind = ai, qi, a.kind
		if !cupid.Finite(st.MaxDistance) || st.MaxDistance < 0 {
			return invalid(f+".max_distance", "must be a finite number ≥ 0, got %v", st.MaxDistance)
		}
		if st.MaxDistance != 0 && !(spec.ranged && spec.hard) {
			return invalid(f+".max_distance", "applies to hard ranged strategies only")
		}
		spec.maxDist = st.MaxDistance
		if spec.ranged && a.kind == cupid.KindString {
			if len(st.Order) == 0 {
				return invalid(f+".order", "a ranged strategy over string labels needs their order")
			}
			spec.order = make(map[string]int, len(st.Order))
			for j, v := range st.Order {
				if _, dup := spec.order[v]; dup {
					return invalid(fmt.Sprintf("%s.order[%d]", f, j), "%q is listed twice", v)
				}
				spec.order[v] = j
			}
		} else if len(st.Order) > 0 {
			return invalid(f+".order", "applies to ranged strategies over string labels only")
		}
		if a.label < 0 {
			a.label = i
		}
		s.strategies = append(s.strategies, spec)
	}
	return nil
}
