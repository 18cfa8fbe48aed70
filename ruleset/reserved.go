package ruleset

import (
	"slices"

	"github.com/cupid-match/cupid"
)

// ReservedKey is what a reserved ticket key of AccelByte's match rulesets
// may hold.
type ReservedKey struct {
	// Kinds are the value kinds accepted.
	Kinds []cupid.ValueKind
	// Kind says it in words for messages: "a boolean".
	Kind string
}

// Holds reports whether a value of kind k fits the key.
func (r ReservedKey) Holds(k cupid.ValueKind) bool { return slices.Contains(r.Kinds, k) }

// reservedKeys lists the keys with their kinds. cross_platform is a list of
// platforms, but a single one is read as a list of one, as the engine reads
// every list attribute.
var reservedKeys = map[string]ReservedKey{
	KeyClientVersion:   {[]cupid.ValueKind{cupid.KindString}, "a string"},
	KeyServerName:      {[]cupid.ValueKind{cupid.KindString}, "a string"},
	KeyRole:            {[]cupid.ValueKind{cupid.KindString, cupid.KindStrings}, "a string or a list of strings"},
	KeyCrossPlatform:   {[]cupid.ValueKind{cupid.KindStrings, cupid.KindString}, "a list of strings"},
	KeyCurrentPlatform: {[]cupid.ValueKind{cupid.KindString}, "a string"},
	KeyNewSessionOnly:  {[]cupid.ValueKind{cupid.KindBool}, "a boolean"},
}

// Reserved returns what a reserved ticket key holds; false for any other
// name. The engine checks tickets against it, and validation refuses a rule
// that would read a reserved key as something it never holds.
func Reserved(name string) (ReservedKey, bool) {
	r, ok := reservedKeys[name]
	return r, ok
}

// KindName names a value kind for messages: "a number", "a boolean".
func KindName(k cupid.ValueKind) string {
	switch k {
	case cupid.KindNumber:
		return "a number"
	case cupid.KindString:
		return "a string"
	case cupid.KindStrings:
		return "a list of strings"
	case cupid.KindBool:
		return "a boolean"
	case cupid.KindNumbers:
		return "a map of numbers"
	}
	return "a value of unknown kind"
}

// What a rule reads an attribute as.
var (
	needNumber         = []cupid.ValueKind{cupid.KindNumber}
	needString         = []cupid.ValueKind{cupid.KindString}
	needStringOrList   = []cupid.ValueKind{cupid.KindString, cupid.KindStrings}
	needNumberOrString = []cupid.ValueKind{cupid.KindNumber, cupid.KindString}
)

// needName says in words what a rule reads an attribute as.
func needName(need []cupid.ValueKind) string {
	switch {
	case slices.Equal(need, needStringOrList):
		return "a string or a list of strings"
	case slices.Equal(need, needNumberOrString):
		return "a number or a string"
	case len(need) == 1:
		return KindName(need[0])
	}
	return "such a value"
}

// reservedFits refuses a rule at path reading the reserved key attr as one of
// the kinds in need when the key never holds any of them.
func (v *validator) reservedFits(path, attr string, need []cupid.ValueKind) {
	r, ok := Reserved(attr)
	if !ok {
		return
	}
	for _, k := range need {
		if r.Holds(k) {
			return
		}
	}
	v.add(path, "%q is a reserved ticket key and never holds %s (it holds %s)", attr, needName(need), r.Kind)
}
