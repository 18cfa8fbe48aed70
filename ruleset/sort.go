package ruleset

// Sort rules (sort_rule) order the candidates an anchor picks from, after
// FlexMatch's absoluteSort and distanceSort. They refuse nobody: a ruleset
// says which players it prefers first, and the engine gathers every
// candidate it may look at (up to its scan limit), orders them by the sort
// rules and fills the match from the front of that order.

// Sort kinds of sort_rule.
const (
	// SortAbsolute orders candidates by the attribute's value
	// (FlexMatch's absoluteSort).
	SortAbsolute = "absolute"
	// SortDistance orders candidates by the distance of their value from
	// the anchor's (FlexMatch's distanceSort).
	SortDistance = "distance"
)

// Sort directions of sort_rule.
const (
	SortAscending  = "ascending"
	SortDescending = "descending"
)

// SortRule orders the candidates of a match by a numeric attribute. Cupid
// extension (FlexMatch's absoluteSort and distanceSort).
type SortRule struct {
	// Attribute is the numeric player attribute sorted on.
	Attribute string `json:"attribute"`
	// Sort is "absolute" (by the value) or "distance" (by the distance
	// of the value from the anchor's).
	Sort string `json:"sort"`
	// Order is "ascending" (the default: smallest value, or nearest,
	// first) or "descending".
	Order string `json:"order,omitempty"`
	// PartyAggregate reduces a party's players to one value: avg (the
	// default), min or max.
	PartyAggregate string `json:"party_aggregate,omitempty"`
	// MapKey makes the rule read a map-of-numbers attribute at the key
	// the anchor values most ("max") or least ("min"), ties to the first
	// key by name: "players who like the anchor's favourite map best
	// first" (FlexMatch's mapKey maxValue and minValue). A candidate
	// without that key sorts last.
	MapKey string `json:"map_key,omitempty"`
}

// The values of sort_rule.map_key.
const (
	MapKeyMax = "max"
	MapKeyMin = "min"
)

// Sort is one compiled sort rule, defaults filled in.
type Sort struct {
	Attribute      string
	Distance       bool
	Descending     bool
	PartyAggregate string
	// MapKey is "", MapKeyMax or MapKeyMin.
	MapKey string
}

// sortRules checks sort_rule.
func (v *validator) sortRules() {
	for i, s := range v.rs.SortRule {
		p := index("sort_rule", i)
		if v.name(p+".attribute", s.Attribute) {
			v.reservedFits(p+".attribute", s.Attribute, needNumber)
		}
		v.oneOf(p+".sort", s.Sort, SortAbsolute, SortDistance)
		if s.Order != "" || v.written(p+".order") {
			v.oneOf(p+".order", s.Order, SortAscending, SortDescending)
		}
		if s.PartyAggregate != "" || v.written(p+".party_aggregate") {
			v.oneOf(p+".party_aggregate", s.PartyAggregate, partyAggregates...)
		}
		if s.MapKey != "" || v.written(p+".map_key") {
			v.oneOf(p+".map_key", s.MapKey, MapKeyMax, MapKeyMin)
		}
	}
}

// compileSorts fills in the defaults of sort_rule, in the order written:
// the first rule sorts, the next breaks its ties, and so on.
func compileSorts(rs *Ruleset) []Sort {
	var out []Sort
	for _, s := range rs.SortRule {
		out = append(out, Sort{
			Attribute:      s.Attribute,
			Distance:       s.Sort == SortDistance,
			Descending:     s.Order == SortDescending,
			PartyAggregate: cmpOr(s.PartyAggregate, AggregateAvg),
			MapKey:         s.MapKey,
		})
	}
	return out
}

var sortRuleKeys = []string{"attribute", "sort", "order", "party_aggregate", "map_key"}

func (d *decoder) sortRule(n *node, path string) SortRule {
	var s SortRule
	d.object(n, path, sortRuleKeys, func(key string, v *node, p string) {
		switch key {
		case "attribute":
			s.Attribute = d.str(v, p)
		case "sort":
			s.Sort = d.str(v, p)
		case "order":
			s.Order = d.str(v, p)
		case "party_aggregate":
			s.PartyAggregate = d.str(v, p)
		case "map_key":
			s.MapKey = d.str(v, p)
		}
	})
	return s
}
