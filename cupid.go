// Package cupid holds the words of the matchmaking domain — tickets, players,
// parties, matches, teams, queue keys — and the interfaces that storage and
// notification adapters implement. It imports nothing of the project, so every
// other package can speak these words without pulling in a technology.
package cupid

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// TicketState is where a ticket is in its life. A ticket starts Waiting and
// ends in exactly one of the other states; it never leaves a final state.
type TicketState string

// The states of a ticket.
const (
	StateWaiting   TicketState = "waiting"
	StateMatched   TicketState = "matched"
	StateCancelled TicketState = "cancelled"
	StateExpired   TicketState = "expired"
)

// Final reports whether the state can no longer change.
func (s TicketState) Final() bool { return s != StateWaiting }

// QueueKey names a pool of tickets that may be matched together. Tickets with
// different keys never meet: the queue name picks the ruleset, the server
// version keeps incompatible clients apart (GameServerVersion in Pragma's
// matchmaking design, client_version in AccelByte's match rulesets) and the
// custom key splits a queue by anything else the game wants (Pragma's
// ExtMatchmakingKey).
type QueueKey struct {
	Queue   string `json:"queue"`
	Version string `json:"version,omitempty"`
	Custom  string `json:"custom,omitempty"`
	// Side is set by the server, never by a client: "canary" for a ticket
	// a canary sent to its candidate ruleset (package rollout), so canary
	// and live tickets are in different pools and never meet. Empty for
	// every other ticket.
	Side string `json:"side,omitempty"`
}

// String renders the key as queue[/version][#custom][@side]; it is the pool's name in
// logs and metrics.
func (k QueueKey) String() string {
	var b strings.Builder
	b.WriteString(k.Queue)
	if k.Version != "" {
		b.WriteString("/")
		b.WriteString(k.Version)
	}
	if k.Custom != "" {
		b.WriteString("#")
		b.WriteString(k.Custom)
	}
	if k.Side != "" {
		b.WriteString("@")
		b.WriteString(k.Side)
	}
	return b.String()
}

// Value is one attribute value: a number, a string, a list of strings, a
// boolean or a map of numbers. Exactly one of the five is meaningful, as Kind
// says. Bool and Map come last and are left out of JSON when empty, so the
// stored form of the other kinds is what it was before they existed.
type Value struct {
	Kind    ValueKind `json:"kind"`
	Number  float64   `json:"number,omitempty"`
	String  string    `json:"string,omitempty"`
	Strings []string  `json:"strings,omitempty"`
	Bool    bool      `json:"bool,omitempty"`
	// Map holds a map of numbers (KindNumbers): a value per key, such as
	// a skill per weapon, of which rules read one key by its path
	// (skills.sword).
	Map map[string]float64 `json:"map,omitempty"`
}

// ValueKind tells which field of a Value is set.
type ValueKind uint8

// The kinds of attribute values.
const (
	KindNumber ValueKind = iota + 1
	KindString
	KindStrings
	// KindBool is a JSON true or false, such as the reserved ticket key
	// new_session_only of AccelByte's match rulesets.
	KindBool
	// KindNumbers is a map from string keys to numbers (FlexMatch's
	// string_number_map): {"sword": 10, "bow": 3}. A rule reads one key
	// of it as a number, by the path "skills.sword" (see Lookup).
	KindNumbers
)

// Number makes a numeric Value.
func Number(f float64) Value { return Value{Kind: KindNumber, Number: f} }

// String makes a string Value.
func String(s string) Value { return Value{Kind: KindString, String: s} }

// Strings makes a string-list Value.
func Strings(s ...string) Value { return Value{Kind: KindStrings, Strings: s} }

// Bool makes a boolean Value.
func Bool(b bool) Value { return Value{Kind: KindBool, Bool: b} }

// Numbers makes a map-of-numbers Value. The map is the caller's, shared.
func Numbers(m map[string]float64) Value { return Value{Kind: KindNumbers, Map: m} }

// Plain is the value as plain Go: a float64, a string, a []string, a bool
// or a map[string]float64 (nil for none), what JSON writes and expressions
// read.
func (v Value) Plain() any {
	switch v.Kind {
	case KindNumbers:
		return v.Map
	case KindNumber:
		return v.Number
	case KindString:
		return v.String
	case KindStrings:
		return v.Strings
	case KindBool:
		return v.Bool
	}
	return nil
}

// Attributes are a player's or ticket's named values, sorted by name with no
// name twice: a slice costs a fraction of a map for the handful of values a
// ticket carries, and a million waiting tickets add up. Build one with
// NewAttributes or Set, which keep the order; Get relies on it.
type Attributes []Attribute

// Attribute is one named value of Attributes.
type Attribute struct {
	Name  string `json:"name"`
	Value Value  `json:"value"`
}

// linearMax is the length up to which a scan beats a binary search: tickets
// carry a handful of attributes and quality a handful of parts.
const linearMax = 8

// Get returns the value named name, if there is one. Short lists are
// scanned, longer ones searched, which is why they must stay sorted.
func (a Attributes) Get(name string) (Value, bool) {
	if len(a) <= linearMax {
		for i := range a {
			if a[i].Name == name {
				return a[i].Value, true
			}
		}
		return Value{}, false
	}
	i, ok := slices.BinarySearchFunc(a, name, func(at Attribute, n string) int { return strings.Compare(at.Name, n) })
	if !ok {
		return Value{}, false
	}
	return a[i].Value, true
}

// Resolve reads an attribute by the name a rule gives: the attribute of
// that exact name, else one key of a map of numbers, named by a path
// "map.key" ("skills.sword": the key "sword" of the map "skills"). A map
// name or a key may itself hold dots: the attribute named by the longest
// prefix before a dot that exists and is a map is the one read, so the
// answer never depends on the order attributes were given. The exact name
// wins over a path, so a ruleset that reads an attribute whose name holds
// a dot reads what it always read. A key that is missing gives false.
func (a Attributes) Resolve(name string) (Value, bool) {
	if v, ok := a.Get(name); ok {
		return v, true
	}
	for i := len(name) - 1; i > 0; i-- {
		if name[i] != '.' {
			continue
		}
		m, ok := a.Get(name[:i])
		if !ok || m.Kind != KindNumbers {
			continue
		}
		n, ok := m.Map[name[i+1:]]
		if !ok {
			return Value{}, false
		}
		return Number(n), true
	}
	return Value{}, false
}

// Len is the number of attributes; it reads like len on the map it replaced.
func (a Attributes) Len() int { return len(a) }

// Set gives name the value v, replacing an existing value in place or
// inserting it where the order wants it. Like a map, a slice shared by two
// owners is changed for both; copy it first (slices.Clone) if that matters.
func (a *Attributes) Set(name string, v Value) {
	i, ok := slices.BinarySearchFunc(*a, name, func(at Attribute, n string) int { return strings.Compare(at.Name, n) })
	if ok {
		(*a)[i].Value = v
		return
	}
	*a = slices.Insert(*a, i, Attribute{Name: name, Value: v})
}

// NewAttributes copies a map into sorted Attributes, for callers that build
// values by name. An empty map gives nil, which JSON omits as it did the
// empty map.
func NewAttributes(m map[string]Value) Attributes {
	if len(m) == 0 {
		return nil
	}
	a := make(Attributes, 0, len(m))
	for name, v := range m {
		a = append(a, Attribute{Name: name, Value: v})
	}
	slices.SortFunc(a, func(x, y Attribute) int { return strings.Compare(x.Name, y.Name) })
	return a
}

// Map returns the attributes as a new map, for callers that want to look
// names up many times or hand them to code that speaks maps. Nil gives nil.
func (a Attributes) Map() map[string]Value {
	if a == nil {
		return nil
	}
	m := make(map[string]Value, len(a))
	for _, at := range a {
		m[at.Name] = at.Value
	}
	return m
}

// MarshalJSON writes the object form {"mmr": {...}, ...} that the map used
// to produce, byte for byte, so stored ticket bodies and JSON output do not
// change with the representation.
func (a Attributes) MarshalJSON() ([]byte, error) {
	if a == nil {
		return []byte("null"), nil
	}
	if !slices.IsSortedFunc(a, func(x, y Attribute) int { return strings.Compare(x.Name, y.Name) }) {
		a = slices.Clone(a)
		slices.SortStableFunc(a, func(x, y Attribute) int { return strings.Compare(x.Name, y.Name) })
	}
	return marshalObject(len(a), func(i int) (string, any) { return a[i].Name, a[i].Value })
}

// UnmarshalJSON reads the object form, sorting the names and refusing a
// name given twice (a map would silently keep the last). null gives nil,
// as it did for the map.
func (a *Attributes) UnmarshalJSON(data []byte) error {
	var out Attributes
	isNull, err := unmarshalObject(data, func(name string, dec *json.Decoder) error {
		var v Value
		if err := dec.Decode(&v); err != nil {
			return err
		}
		out = append(out, Attribute{Name: name, Value: v})
		return nil
	})
	if err != nil {
		return err
	}
	if isNull {
		*a = nil
		return nil
	}
	if out == nil {
		out = Attributes{}
	}
	slices.SortStableFunc(out, func(x, y Attribute) int { return strings.Compare(x.Name, y.Name) })
	for i := 1; i < len(out); i++ {
		if out[i].Name == out[i-1].Name {
			return fmt.Errorf("cupid: attribute %q given twice", out[i].Name)
		}
	}
	*a = out
	return nil
}

// marshalObject writes n name/value pairs as a JSON object, encoding each
// name and value as encoding/json encodes map keys and values.
func marshalObject(n int, pair func(i int) (string, any)) ([]byte, error) {
	b := append(make([]byte, 0, 32*n+2), '{')
	for i := 0; i < n; i++ {
		name, v := pair(i)
		if i > 0 {
			b = append(b, ',')
		}
		k, err := json.Marshal(name)
		if err != nil {
			return nil, err
		}
		val, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		b = append(b, k...)
		b = append(b, ':')
		b = append(b, val...)
	}
	return append(b, '}'), nil
}

// unmarshalObject walks a JSON object, handing each member's name to member
// with the decoder positioned on its value; it reports whether data was
// null instead.
func unmarshalObject(data []byte, member func(name string, dec *json.Decoder) error) (bool, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return false, err
	}
	if tok == nil {
		return true, nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return false, fmt.Errorf("cupid: expected a JSON object, got %v", tok)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false, err
		}
		name, ok := tok.(string)
		if !ok {
			return false, fmt.Errorf("cupid: expected a member name, got %v", tok)
		}
		if err := member(name, dec); err != nil {
			return false, err
		}
	}
	if _, err := dec.Token(); err != nil {
		return false, err
	}
	return false, nil
}

// Player is one person in a ticket. Attributes carry skill, preferences and
// the reserved keys of AccelByte's match rulesets (role, cross_platform, …).
type Player struct {
	ID         string     `json:"id"`
	Attributes Attributes `json:"attributes,omitempty"`
}

// Ticket is a request to be matched: one player, or a party that must end up
// on the same team. The ticket's age counts from CreatedAt, which survives
// restarts so relaxation carries on where it was.
type Ticket struct {
	ID        string           `json:"id"`
	Key       QueueKey         `json:"key"`
	Players   []Player         `json:"players"`
	Latencies map[string]int32 `json:"latencies,omitempty"`
	// Attributes are ticket-wide values (the match options of AccelByte's
	// match rulesets, for instance); per-player values live on the players.
	Attributes Attributes  `json:"attributes,omitempty"`
	RequestID  string      `json:"request_id,omitempty"`
	CreatedAt  time.Time   `json:"created_at"`
	ExpiresAt  time.Time   `json:"expires_at"`
	State      TicketState `json:"state"`
	MatchID    string      `json:"match_id,omitempty"`
	UpdatedAt  time.Time   `json:"updated_at"`
	// Reason says why the server ended the ticket when it was not matched
	// and its owner did not cancel it: replaced by a newer ticket, its
	// players matched in another queue, refused by a new ruleset.
	Reason string `json:"reason,omitempty"`
	// HeldUntil, set by the server, keeps the ticket out of matching until
	// then (a low-priority player's penalty: he waits longer). Its age and
	// expiry still count from CreatedAt.
	HeldUntil time.Time `json:"held_until,omitzero"`
}

// Wait is how long the ticket has waited at now.
func (t *Ticket) Wait(now time.Time) time.Duration {
	d := now.Sub(t.CreatedAt)
	if d < 0 {
		return 0
	}
	return d
}

// PlayerIDs lists the ticket's players in order.
func (t *Ticket) PlayerIDs() []string {
	ids := make([]string, len(t.Players))
	for i, p := range t.Players {
		ids[i] = p.ID
	}
	return ids
}

// Team is one side of a match: the tickets (and so parties) placed on it.
type Team struct {
	TicketIDs []string `json:"ticket_ids"`
	PlayerIDs []string `json:"player_ids"`
}

// Quality is a match's score in [0,1] and the per-criterion parts it was
// averaged from, so a studio can see why a match scored as it did.
type Quality struct {
	Score float64      `json:"score"`
	Parts QualityParts `json:"parts,omitempty"`
}

// QualityParts are a match's per-criterion scores, sorted by Name: the
// engine carves every match's parts from one slice per pass instead of
// allocating a map per match.
type QualityParts []QualityPart

// QualityPart is one criterion's score in QualityParts.
type QualityPart struct {
	Name  string  `json:"name"`
	Score float64 `json:"score"`
}

// Get returns the score of the criterion name, if it applied to the match.
func (p QualityParts) Get(name string) (float64, bool) {
	if len(p) <= linearMax {
		for i := range p {
			if p[i].Name == name {
				return p[i].Score, true
			}
		}
		return 0, false
	}
	i, ok := slices.BinarySearchFunc(p, name, func(q QualityPart, n string) int { return strings.Compare(q.Name, n) })
	if !ok {
		return 0, false
	}
	return p[i].Score, true
}

// Map returns the parts as a new map, for APIs that speak maps (the
// protobuf Quality). Nil gives nil.
func (p QualityParts) Map() map[string]float64 {
	if p == nil {
		return nil
	}
	m := make(map[string]float64, len(p))
	for _, q := range p {
		m[q.Name] = q.Score
	}
	return m
}

// MarshalJSON writes the object form {"ping": 0.9, ...} that the map used to
// produce, byte for byte.
func (p QualityParts) MarshalJSON() ([]byte, error) {
	if p == nil {
		return []byte("null"), nil
	}
	if !slices.IsSortedFunc(p, func(x, y QualityPart) int { return strings.Compare(x.Name, y.Name) }) {
		p = slices.Clone(p)
		slices.SortStableFunc(p, func(x, y QualityPart) int { return strings.Compare(x.Name, y.Name) })
	}
	return marshalObject(len(p), func(i int) (string, any) { return p[i].Name, p[i].Score })
}

// UnmarshalJSON reads the object form, sorting the names and refusing a
// name given twice. null gives nil, as it did for the map.
func (p *QualityParts) UnmarshalJSON(data []byte) error {
	var out QualityParts
	isNull, err := unmarshalObject(data, func(name string, dec *json.Decoder) error {
		var v float64
		if err := dec.Decode(&v); err != nil {
			return err
		}
		out = append(out, QualityPart{Name: name, Score: v})
		return nil
	})
	if err != nil {
		return err
	}
	if isNull {
		*p = nil
		return nil
	}
	if out == nil {
		out = QualityParts{}
	}
	slices.SortStableFunc(out, func(x, y QualityPart) int { return strings.Compare(x.Name, y.Name) })
	for i := 1; i < len(out); i++ {
		if out[i].Name == out[i-1].Name {
			return fmt.Errorf("cupid: quality part %q given twice", out[i].Name)
		}
	}
	*p = out
	return nil
}

// Match is a set of tickets committed together. A ticket belongs to at most
// one match, ever.
type Match struct {
	ID        string    `json:"id"`
	Key       QueueKey  `json:"key"`
	Teams     []Team    `json:"teams"`
	Quality   Quality   `json:"quality"`
	CreatedAt time.Time `json:"created_at"`
	// Region is where the match should be hosted: the region every ticket
	// accepts with the lowest worst latency. Empty without latency rules.
	Region string `json:"region,omitempty"`
	// Roles maps each player to the role they play, when the ruleset has
	// role quotas.
	Roles map[string]string `json:"roles,omitempty"`
	// AcceptBy is the deadline of the ready check of a match whose queue
	// asks its players to accept (see accept.go); zero otherwise. A
	// match committed with it is pending until everyone accepted.
	AcceptBy time.Time `json:"accept_by,omitzero"`
	// Seats, Backfill and Left are the match as a game session (see
	// session.go): how many players each team holds at most, whether it
	// is open to backfill now, and who left. Teams lists the players in
	// it now; TicketIDs every ticket that ever joined.
	Seats    []int    `json:"seats,omitempty"`
	Backfill bool     `json:"backfill,omitempty"`
	Left     []Leaver `json:"left,omitempty"`
	// BackfillOptions are the match options a backend gave when it opened
	// backfill (option name → values): newcomers are compared with them
	// instead of with the options the session's players carried.
	BackfillOptions map[string][]string `json:"backfill_options,omitempty"`
	// ServerPlayers are the players' data as the game server last gave it
	// when it opened backfill with its view of the teams (see
	// SessionChange.Teams): newcomers are compared with these players by
	// it rather than by their tickets (players it added have none). Kept
	// in the match so a restart and every node compare alike.
	ServerPlayers []Player `json:"server_players,omitempty"`
}

// TicketIDs lists every ticket of the match, team by team.
func (m *Match) TicketIDs() []string {
	var ids []string
	for _, t := range m.Teams {
		ids = append(ids, t.TicketIDs...)
	}
	return ids
}

// SortedKeys returns a map's keys in order; used wherever output must not
// depend on Go's randomised map iteration.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Finite reports whether f is a usable number (not NaN, not ±Inf).
func Finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
