package sim

import (
	"math"
	"math/rand/v2"

	"github.com/cupid-match/cupid"
)

// Dist is a distribution of one number, as a population file writes it:
//
//	{kind: normal, mean: 1500, sd: 300, min: 0, max: 3000}
//
// Kinds and the fields each takes:
//
//	const        value
//	uniform      min, max (both required; the bounds of the draw)
//	normal       mean, sd
//	lognormal    median, sigma (the median and the standard deviation of the logarithm)
//	exponential  mean
//
// min and max clamp every kind's draw (for uniform they are its bounds). A
// field the kind does not take is an error, not ignored: a lognormal given a
// mean would otherwise silently draw around some other median.
type Dist struct {
	Kind   string   `yaml:"kind" json:"kind"`
	Value  *float64 `yaml:"value" json:"value,omitempty"`
	Mean   *float64 `yaml:"mean" json:"mean,omitempty"`
	SD     *float64 `yaml:"sd" json:"sd,omitempty"`
	Median *float64 `yaml:"median" json:"median,omitempty"`
	Sigma  *float64 `yaml:"sigma" json:"sigma,omitempty"`
	Min    *float64 `yaml:"min" json:"min,omitempty"`
	Max    *float64 `yaml:"max" json:"max,omitempty"`
}

// distFields lists, per kind, the fields it requires (min and max are
// allowed everywhere and required by uniform).
var distFields = map[string][]string{
	"const":       {"value"},
	"uniform":     {"min", "max"},
	"normal":      {"mean", "sd"},
	"lognormal":   {"median", "sigma"},
	"exponential": {"mean"},
}

func (d *Dist) field(name string) *float64 {
	switch name {
	case "value":
		return d.Value
	case "mean":
		return d.Mean
	case "sd":
		return d.SD
	case "median":
		return d.Median
	case "sigma":
		return d.Sigma
	case "min":
		return d.Min
	case "max":
		return d.Max
	}
	return nil
}

// check validates the distribution; path names it in errors. lo is the
// smallest value a draw may take for its use (0 for times, -Inf for skill).
func (d *Dist) check(path string, lo float64) error {
	if d == nil {
		return cupid.Invalid(path, "required")
	}
	need, ok := distFields[d.Kind]
	if !ok {
		return cupid.Invalid(path+".kind", "must be one of const, uniform, normal, lognormal, exponential, not %q", d.Kind)
	}
	for _, name := range []string{"value", "mean", "sd", "median", "sigma", "min", "max"} {
		v := d.field(name)
		required, allowed := false, name == "min" || name == "max"
		for _, n := range need {
			if n == name {
				required, allowed = true, true
			}
		}
		switch {
		case v == nil && required:
			return cupid.Invalid(path+"."+name, "required for kind %s", d.Kind)
		case v != nil && !allowed:
			return cupid.Invalid(path+"."+name, "kind %s does not take %s (it takes %v, and min and max)", d.Kind, name, need)
		case v != nil && !cupid.Finite(*v):
			return cupid.Invalid(path+"."+name, "must be a finite number")
		}
	}
	positive := func(name string, v *float64) error {
		if v != nil && *v <= 0 {
			return cupid.Invalid(path+"."+name, "must be positive, not %v", *v)
		}
		return nil
	}
	for _, e := range []error{positive("sd", d.SD), positive("sigma", d.Sigma), positive("median", d.Median)} {
		if e != nil {
			return e
		}
	}
	if d.Kind == "exponential" {
		if err := positive("mean", d.Mean); err != nil {
			return err
		}
	}
	if d.Min != nil && d.Max != nil && *d.Min > *d.Max {
		return cupid.Invalid(path+".max", "must be ≥ min (%v < %v)", *d.Max, *d.Min)
	}
	if d.Kind == "const" && *d.Value < lo {
		return cupid.Invalid(path+".value", "must be ≥ %v, not %v", lo, *d.Value)
	}
	if d.Max != nil && *d.Max < lo {
		return cupid.Invalid(path+".max", "must be ≥ %v, not %v", lo, *d.Max)
	}
	return nil
}

// draw takes one value from r, clamped to [min, max] and to lo.
func (d *Dist) draw(r *rand.Rand, lo float64) float64 {
	var v float64
	switch d.Kind {
	case "const":
		v = *d.Value
	case "uniform":
		v = *d.Min + r.Float64()*(*d.Max-*d.Min)
	case "normal":
		v = *d.Mean + r.NormFloat64()**d.SD
	case "lognormal":
		v = *d.Median * math.Exp(r.NormFloat64()**d.Sigma)
	case "exponential":
		v = r.ExpFloat64() * *d.Mean
	}
	if d.Min != nil {
		v = max(v, *d.Min)
	}
	if d.Max != nil {
		v = min(v, *d.Max)
	}
	return max(v, lo)
}
