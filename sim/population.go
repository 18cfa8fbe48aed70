package sim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/cupid-match/cupid"
)

// Population describes the players of a simulated run: how many arrive and
// when, how good they are, where they live, whom they queue with, which
// roles they play, how long they wait before giving up and whether they
// come back after a match. docs/simulator.md documents every field; the
// examples live in docs/examples/sim/.
type Population struct {
	// Name titles the report.
	Name string `yaml:"name"`
	// Players is how many new players arrive over the run (party members
	// counted one by one). Players who come back after a match queue again
	// on top of these.
	Players int `yaml:"players"`
	// Hours is the length of the run in virtual time (default 24).
	Hours float64 `yaml:"hours"`
	// Arrivals shapes the arrival rate over the day.
	Arrivals Arrivals `yaml:"arrivals"`
	// Skill is the players' skill attribute and its distribution.
	Skill Skill `yaml:"skill"`
	// Regions are where players live, each with its share of the parties
	// and their latency to every server region.
	Regions []Region `yaml:"regions"`
	// Parties are the party sizes and their shares of tickets (default:
	// everyone solo).
	Parties []PartyShare `yaml:"parties"`
	// Roles, when set, gives every player the roles it accepts.
	Roles *Roles `yaml:"roles"`
	// Patience is how many seconds a party waits before it leaves the
	// queue.
	Patience *Dist `yaml:"patience"`
	// Return says how many parties queue again after a match, and when.
	Return *Return `yaml:"return"`
}

// Arrivals is the shape of the arrival rate over a day: relative weights,
// scaled so that Players arrive over the run. Exactly one of Curve and
// Table is given. Runs longer than a day repeat the day.
type Arrivals struct {
	// Curve lists (hour, weight) points; the rate is linear between them
	// and wraps around midnight.
	Curve []CurvePoint `yaml:"curve"`
	// Table gives 24 weights, one per hour, constant within the hour.
	Table []float64 `yaml:"table"`
}

// CurvePoint is one point of an arrival curve.
type CurvePoint struct {
	Hour   float64 `yaml:"hour"`
	Weight float64 `yaml:"weight"`
}

// Skill is the attribute the rulesets read as skill and how it is drawn.
type Skill struct {
	// Attribute is the player attribute (default mmr).
	Attribute string `yaml:"attribute"`
	// Dist draws a party leader's skill.
	Dist *Dist `yaml:"dist"`
	// PartySD spreads the other members of a party around their leader
	// (normal, this standard deviation; 0 gives them the leader's skill).
	PartySD float64 `yaml:"party_sd"`
}

// Region is where some players live and how far they are from every
// server region.
type Region struct {
	Name  string  `yaml:"name"`
	Share float64 `yaml:"share"`
	// Latency maps a server region to the distribution of a party's
	// latency there, in ms.
	Latency map[string]*Dist `yaml:"latency"`
}

// PartyShare is one party size and its share of tickets.
type PartyShare struct {
	Size  int     `yaml:"size"`
	Share float64 `yaml:"share"`
}

// Roles gives players the roles they accept.
type Roles struct {
	// Attribute is the player attribute holding the roles (default role,
	// the reserved key rulesets read).
	Attribute string `yaml:"attribute"`
	// Choices are role lists (first choice first) and the share of players
	// holding each.
	Choices []RoleChoice `yaml:"choices"`
}

// RoleChoice is one list of accepted roles and its share of players.
type RoleChoice struct {
	Roles []string `yaml:"roles"`
	Share float64  `yaml:"share"`
}

// Return is the share of matched parties that queue again and the delay
// (seconds after the match: its length and a break) before they do.
type Return struct {
	Rate  float64 `yaml:"rate"`
	After *Dist   `yaml:"after"`
}

// MaxPlayers bounds a population, so a typo of three zeros is refused
// rather than run for an hour.
const MaxPlayers = 20_000_000

// ParsePopulation reads a population file strictly (unknown fields are
// errors, with their line) and checks it; errors name the field.
func ParsePopulation(data []byte) (*Population, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var p Population
	if err := dec.Decode(&p); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, cupid.Invalid("", "the population file is empty")
		}
		return nil, cupid.Invalid("", "%s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if err := p.Check(); err != nil {
		return nil, err
	}
	return &p, nil
}

// Check validates a population and fills its defaults.
func (p *Population) Check() error {
	if p.Players <= 0 || p.Players > MaxPlayers {
		return cupid.Invalid("players", "must be between 1 and %d, not %d", MaxPlayers, p.Players)
	}
	if p.Hours == 0 {
		p.Hours = 24
	}
	if !(p.Hours > 0 && p.Hours <= 24*31) {
		return cupid.Invalid("hours", "must be more than 0 and at most %d (a month), not %v", 24*31, p.Hours)
	}
	if err := p.Arrivals.check(); err != nil {
		return err
	}
	if p.Skill.Attribute == "" {
		p.Skill.Attribute = "mmr"
	}
	if err := p.Skill.Dist.check("skill.dist", math.Inf(-1)); err != nil {
		return err
	}
	if p.Skill.PartySD < 0 || !cupid.Finite(p.Skill.PartySD) {
		return cupid.Invalid("skill.party_sd", "must be a finite number ≥ 0")
	}
	seen := map[string]bool{}
	for i, r := range p.Regions {
		path := fmt.Sprintf("regions[%d]", i)
		if r.Name == "" {
			return cupid.Invalid(path+".name", "required")
		}
		if seen[r.Name] {
			return cupid.Invalid(path+".name", "%q is listed twice", r.Name)
		}
		seen[r.Name] = true
		if err := checkShare(path+".share", r.Share); err != nil {
			return err
		}
		if len(r.Latency) == 0 {
			return cupid.Invalid(path+".latency", "required: the latency to at least one server region")
		}
		for _, server := range cupid.SortedKeys(r.Latency) {
			if server == "" {
				return cupid.Invalid(path+".latency", "a server region needs a name")
			}
			if err := r.Latency[server].check(path+".latency."+server, 1); err != nil {
				return err
			}
		}
	}
	if len(p.Parties) == 0 {
		p.Parties = []PartyShare{{Size: 1, Share: 1}}
	}
	sizes := map[int]bool{}
	for i, ps := range p.Parties {
		path := fmt.Sprintf("parties[%d]", i)
		if ps.Size < 1 || ps.Size > 100 {
			return cupid.Invalid(path+".size", "must be between 1 and 100, not %d", ps.Size)
		}
		if sizes[ps.Size] {
			return cupid.Invalid(path+".size", "size %d is listed twice", ps.Size)
		}
		sizes[ps.Size] = true
		if err := checkShare(path+".share", ps.Share); err != nil {
			return err
		}
	}
	if p.Roles != nil {
		if p.Roles.Attribute == "" {
			p.Roles.Attribute = "role"
		}
		if p.Roles.Attribute == p.Skill.Attribute {
			return cupid.Invalid("roles.attribute", "%q is already the skill attribute", p.Roles.Attribute)
		}
		if len(p.Roles.Choices) == 0 {
			return cupid.Invalid("roles.choices", "required: at least one list of roles")
		}
		for i, c := range p.Roles.Choices {
			path := fmt.Sprintf("roles.choices[%d]", i)
			if len(c.Roles) == 0 {
				return cupid.Invalid(path+".roles", "required: at least one role")
			}
			for k, r := range c.Roles {
				if r == "" || slices.Index(c.Roles, r) != k {
					return cupid.Invalid(fmt.Sprintf("%s.roles[%d]", path, k), "roles must be named and listed once")
				}
			}
			if err := checkShare(path+".share", c.Share); err != nil {
				return err
			}
		}
	}
	if err := p.Patience.check("patience", 0); err != nil {
		return err
	}
	if p.Return != nil {
		if !(p.Return.Rate >= 0 && p.Return.Rate <= 1) {
			return cupid.Invalid("return.rate", "must be between 0 and 1, not %v", p.Return.Rate)
		}
		if err := p.Return.After.check("return.after", 0); err != nil {
			return err
		}
	}
	return nil
}

func checkShare(path string, v float64) error {
	if !(v > 0) || !cupid.Finite(v) {
		return cupid.Invalid(path, "must be a positive number, not %v", v)
	}
	return nil
}

func (a *Arrivals) check() error {
	switch {
	case len(a.Curve) > 0 && len(a.Table) > 0:
		return cupid.Invalid("arrivals", "give curve or table, not both")
	case len(a.Curve) == 0 && len(a.Table) == 0:
		return cupid.Invalid("arrivals", "required: a curve of (hour, weight) points or a table of 24 hourly weights")
	case len(a.Table) > 0 && len(a.Table) != 24:
		return cupid.Invalid("arrivals.table", "must hold 24 weights, one per hour, not %d", len(a.Table))
	}
	total := 0.0
	for i, w := range a.Table {
		if !(w >= 0) || !cupid.Finite(w) {
			return cupid.Invalid(fmt.Sprintf("arrivals.table[%d]", i), "must be a number ≥ 0, not %v", w)
		}
		total += w
	}
	for i, pt := range a.Curve {
		path := fmt.Sprintf("arrivals.curve[%d]", i)
		if !(pt.Hour >= 0 && pt.Hour < 24) {
			return cupid.Invalid(path+".hour", "must be in [0, 24), not %v", pt.Hour)
		}
		if i > 0 && pt.Hour <= a.Curve[i-1].Hour {
			return cupid.Invalid(path+".hour", "hours must increase (%v after %v)", pt.Hour, a.Curve[i-1].Hour)
		}
		if !(pt.Weight >= 0) || !cupid.Finite(pt.Weight) {
			return cupid.Invalid(path+".weight", "must be a number ≥ 0, not %v", pt.Weight)
		}
		total += pt.Weight
	}
	if !(total > 0) {
		return cupid.Invalid("arrivals", "every weight is 0: nobody would arrive")
	}
	return nil
}

// weightAt is the relative arrival rate at hour h of the day (0 ≤ h < 24).
func (a *Arrivals) weightAt(h float64) float64 {
	if len(a.Table) > 0 {
		return a.Table[int(h)%24]
	}
	c := a.Curve
	if len(c) == 1 {
		return c[0].Weight
	}
	// The segment that holds h, wrapping from the last point to the first
	// one of the next day.
	i := sort.Search(len(c), func(i int) bool { return c[i].Hour > h })
	var x0, w0, x1, w1 float64
	switch i {
	case 0:
		x0, w0, x1, w1 = c[len(c)-1].Hour-24, c[len(c)-1].Weight, c[0].Hour, c[0].Weight
	case len(c):
		x0, w0, x1, w1 = c[len(c)-1].Hour, c[len(c)-1].Weight, c[0].Hour+24, c[0].Weight
	default:
		x0, w0, x1, w1 = c[i-1].Hour, c[i-1].Weight, c[i].Hour, c[i].Weight
	}
	return w0 + (w1-w0)*(h-x0)/(x1-x0)
}

// The random streams of a run. Each party's draws come from a generator
// seeded by the run's seed, the party's number, its visit and the stream,
// so a party is the same player in every ruleset a comparison runs,
// whatever happened to the others: its skill, region, patience on its
// third visit, whether it comes back after its second match.
const (
	streamSizes uint64 = iota + 1
	streamTimes
	streamPlayers
	streamPatience
	streamReturn
)

// mix spreads a party number, visit and stream over 64 bits (splitmix64's
// finaliser), the second seed of the party's generator.
func mix(j, visit int, stream uint64) uint64 {
	z := uint64(j)<<20 ^ uint64(visit)<<4 ^ stream
	z += 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// rng is a reusable seeded generator: reseeding a PCG costs two stores,
// so each draw group gets its own stream without an allocation.
type rng struct {
	pcg *rand.PCG
	r   *rand.Rand
}

func newRNG() *rng {
	pcg := rand.NewPCG(0, 0)
	return &rng{pcg: pcg, r: rand.New(pcg)}
}

func (g *rng) at(seed uint64, j, visit int, stream uint64) *rand.Rand {
	g.pcg.Seed(seed, mix(j, visit, stream))
	return g.r
}

// arrival is one party's first arrival: when, and how many players.
type arrival struct {
	at   int64 // ns since the run's start
	size int32
}

// schedule draws the parties of a run: sizes until Players are reached,
// then each party's arrival time from the rate curve (by the minute), in
// time order.
func (p *Population) schedule(seed uint64) []arrival {
	g := newRNG()
	cum := cumulative(p.Parties, func(ps PartyShare) float64 { return ps.Share })
	r := g.at(seed, 0, 0, streamSizes)
	var out []arrival
	for n := 0; n < p.Players; {
		size := int32(p.Parties[pick(cum, r.Float64())].Size)
		size = min(size, int32(p.Players-n))
		out = append(out, arrival{size: size})
		n += int(size)
	}
	minutes := int(math.Ceil(p.Hours * 60))
	weights := make([]float64, minutes)
	for i := range weights {
		// The last minute may be partial.
		width := min(1, p.Hours*60-float64(i))
		weights[i] = p.Arrivals.weightAt(math.Mod((float64(i)+0.5)/60, 24)) * width
	}
	mcum := cumulative(weights, func(w float64) float64 { return w })
	end := int64(p.Hours * 3600 * 1e9)
	r = g.at(seed, 0, 0, streamTimes)
	for i := range out {
		m := pick(mcum, r.Float64())
		at := int64((float64(m) + r.Float64()) * 60e9)
		out[i].at = min(at, end-1)
	}
	slices.SortStableFunc(out, func(a, b arrival) int {
		switch {
		case a.at < b.at:
			return -1
		case a.at > b.at:
			return 1
		}
		return 0
	})
	return out
}

// cumulative returns the running sums of weights normalised to end at 1.
func cumulative[T any](items []T, w func(T) float64) []float64 {
	out := make([]float64, len(items))
	total := 0.0
	for i, it := range items {
		total += w(it)
		out[i] = total
	}
	for i := range out {
		out[i] /= total
	}
	return out
}

// pick is the first index whose cumulative share exceeds u.
func pick(cum []float64, u float64) int {
	i := sort.SearchFloat64s(cum, u)
	for i < len(cum)-1 && cum[i] <= u {
		i++
	}
	return min(i, len(cum)-1)
}

// party builds party j's ticket: its players with their skill and roles,
// its latencies. Visits share the players; the caller gives each visit its
// own ID and creation time.
func (p *Population) party(g *rng, seed uint64, j int, size int32) *cupid.Ticket {
	r := g.at(seed, j, 0, streamPlayers)
	t := &cupid.Ticket{Players: make([]cupid.Player, size)}
	lead := p.Skill.Dist.draw(r, math.Inf(-1))
	var roleCum []float64
	if p.Roles != nil {
		roleCum = cumulative(p.Roles.Choices, func(c RoleChoice) float64 { return c.Share })
	}
	for k := range t.Players {
		skill := lead
		if k > 0 && p.Skill.PartySD > 0 {
			skill += r.NormFloat64() * p.Skill.PartySD
			if d := p.Skill.Dist; d.Min != nil {
				skill = max(skill, *d.Min)
			}
			if d := p.Skill.Dist; d.Max != nil {
				skill = min(skill, *d.Max)
			}
		}
		attrs := cupid.Attributes{{Name: p.Skill.Attribute, Value: cupid.Number(math.Round(skill))}}
		if p.Roles != nil {
			c := p.Roles.Choices[pick(roleCum, r.Float64())]
			attrs = append(attrs, cupid.Attribute{Name: p.Roles.Attribute, Value: cupid.Strings(c.Roles...)})
			slices.SortFunc(attrs, func(a, b cupid.Attribute) int { return strings.Compare(a.Name, b.Name) })
		}
		t.Players[k] = cupid.Player{ID: "p" + strconv.Itoa(j) + "." + strconv.Itoa(k+1), Attributes: attrs}
	}
	if len(p.Regions) > 0 {
		cum := cumulative(p.Regions, func(rg Region) float64 { return rg.Share })
		home := p.Regions[pick(cum, r.Float64())]
		t.Latencies = make(map[string]int32, len(home.Latency))
		for _, server := range cupid.SortedKeys(home.Latency) {
			t.Latencies[server] = int32(math.Round(home.Latency[server].draw(r, 1)))
		}
	}
	return t
}
