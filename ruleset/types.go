// Package ruleset parses, validates and compiles Cupid's matchmaking
// rulesets: the JSON documents that say how many teams a match has, which
// attributes must be close, which options must agree and how all of that
// relaxes while players wait.
//
// The field names are those of AccelByte's match rulesets (alliance,
// matching_rule, flexing_rule, match_options, region_latency_*…) so that a
// ruleset written for that service loads unchanged. Cupid adds what the other
// matchmakers have and AccelByte lacks — comparisons, collections, team
// aggregates, match totals, roles, cross-play, expressions and match-quality
// weights — under snake_case names in the same style. docs/rulesets.md is the
// reference.
//
// The package is pure: no I/O, no goroutines, no wall clock. Time enters as a
// ticket's wait, so the engine and the simulator replay every decision.
package ruleset

import (
	"encoding/json"
	"fmt"

	"github.com/cupid-match/cupid"
)

// Ruleset is one ruleset document as written by a studio. Its zero values mean
// "not set"; Compile fills in the defaults the engine works with, so the engine
// should read a Compiled rather than a Ruleset.
type Ruleset struct {
	// AutoBackfill marks every match this ruleset forms as open to backfill
	// until it is full (auto_backfill of AccelByte's match rulesets).
	AutoBackfill bool `json:"auto_backfill,omitempty"`

	// Alliance is the shape of a match: how many teams, how many players in
	// each. It is the only required part of a ruleset.
	Alliance Alliance `json:"alliance"`

	// AllianceFlexingRule relaxes Alliance after a ticket has waited
	// Duration seconds, so that a match may start with fewer players.
	AllianceFlexingRule []AllianceFlex `json:"alliance_flexing_rule,omitempty"`

	// MatchingRule lists the numeric attributes that must be close between the
	// tickets of a match (the distance rules of AccelByte's match rulesets).
	MatchingRule []MatchingRule `json:"matching_rule,omitempty"`

	// FlexingRule widens a matching rule's reference after a wait. Each entry
	// names the attribute and criteria of the matching rule it relaxes.
	FlexingRule []FlexingRule `json:"flexing_rule,omitempty"`

	// MatchOptions are custom parameters the players' preferences must agree
	// on (map, language, …), each with an all/any/unique policy.
	MatchOptions *MatchOptions `json:"match_options,omitempty"`

	// MatchOptionsReferredForBackfill makes backfill look only at the match
	// options when it compares a waiting ticket with a running game, not at
	// every session attribute the game server may have added since.
	MatchOptionsReferredForBackfill bool `json:"match_options_referred_for_backfill,omitempty"`

	// RegionLatencyInitialRangeMs is the latency a ticket accepts at once:
	// every region it reaches within this many milliseconds is searchable
	// from the first moment. Latency rules apply only when
	// RegionLatencyMaxMs is set.
	RegionLatencyInitialRangeMs int `json:"region_latency_initial_range_ms,omitempty"`

	// RegionExpansionRangeMs is how many milliseconds are added to the
	// accepted latency at each expansion.
	RegionExpansionRangeMs int `json:"region_expansion_range_ms,omitempty"`

	// RegionExpansionRateMs is the wait, in milliseconds, between two
	// expansions.
	RegionExpansionRateMs int `json:"region_expansion_rate_ms,omitempty"`

	// RegionLatencyMaxMs caps the expansion. A ticket whose latency to every
	// region is above it never matches. Zero turns latency rules off.
	RegionLatencyMaxMs int `json:"region_latency_max_ms,omitempty"`

	// RegionLatencyFlexing widens the accepted latency at waits of your
	// choosing, {duration (s), value (ms)} each, instead of the even
	// expansion of RegionExpansionRangeMs every RegionExpansionRateMs. Cupid
	// extension (FlexMatch's latency expansions).
	RegionLatencyFlexing []Flex `json:"region_latency_flexing,omitempty"`

	// RegionLatencySpreadMs bounds how far apart the players' latencies to
	// the match's region may be: the fastest and the slowest differ by at
	// most this many milliseconds. Zero: no bound. Cupid extension
	// (FlexMatch's latency maxDistance).
	RegionLatencySpreadMs int `json:"region_latency_spread_ms,omitempty"`

	// RegionChoice is where a ticket may play among the regions it
	// accepts: "acceptable" (the default) any of them, so a match takes
	// whoever shares an acceptable region with it and is hosted where the
	// worst latency is lowest; "fastest" only the region where it reported
	// its lowest latency (ties by region name), so tickets are grouped with
	// those whose fastest region is the same and play there: lower latency
	// for a smaller pool to match from (FlexMatch's fastestRegion). Needs
	// region_latency_max_ms.
	RegionChoice string `json:"region_choice,omitempty"`

	// DisableBidirectionalLatencyAfterMs lets a pivot ticket older than this
	// many milliseconds skip the bidirectional check (the candidate must also
	// have expanded to the pivot's region). Zero or negative: always check.
	DisableBidirectionalLatencyAfterMs int `json:"disable_bidirectional_latency_after_ms,omitempty"`

	// ComparisonRule gates tickets on an attribute compared with a constant
	// (level >= 10) or with each other (same game_version). Cupid extension.
	ComparisonRule []ComparisonRule `json:"comparison_rule,omitempty"`

	// CollectionRule constrains string-list attributes: the lists of a
	// match must share values, or each must contain a value. Cupid extension.
	CollectionRule []CollectionRule `json:"collection_rule,omitempty"`

	// TeamRule bounds the difference of a per-team aggregate (average
	// skill, total gear score…) between the teams of a match. Cupid
	// extension.
	TeamRule []TeamRule `json:"team_rule,omitempty"`

	// MatchTotal bounds an aggregate over the whole match (total players'
	// power, average level…). Cupid extension.
	MatchTotal []MatchTotalRule `json:"match_total,omitempty"`

	// Roles sets per-team role quotas read from the reserved ticket key
	// "role". Cupid extension.
	Roles *RoleRule `json:"roles,omitempty"`

	// CrossPlay matches players only with platforms they accepted, read from
	// the reserved keys cross_platform and current_platform. Cupid
	// extension.
	CrossPlay *CrossPlay `json:"cross_play,omitempty"`

	// TicketQuery lets each ticket carry, in an attribute, its own query
	// over the other tickets' attributes (Nakama's matchmaker query).
	// Cupid extension (query.go).
	TicketQuery *TicketQuery `json:"ticket_query,omitempty"`

	// Filter lists expr-lang boolean expressions a pair of tickets or a whole
	// match must satisfy. Cupid extension, compiled once at load.
	Filter []ExprRule `json:"filter,omitempty"`

	// Score lists expr-lang numeric expressions that add custom criteria to
	// the match quality score. Cupid extension.
	Score []ExprRule `json:"score,omitempty"`

	// AttributeDefaults give a player attribute its value when a ticket
	// leaves it out, before any rule reads it. Cupid extension (FlexMatch's
	// player attribute defaults).
	AttributeDefaults []AttributeDefault `json:"attribute_defaults,omitempty"`

	// TeamSizes says how team sizes may differ within one match: "equal"
	// (4v4, never 4v5) or "within_one"; empty lets them differ as far as
	// the alliance allows. Cupid extension (FlexMatch's equal team sizes).
	TeamSizes string `json:"team_sizes,omitempty"`

	// CompoundRule combines filters with and, or, xor and not. A filter
	// named in a statement applies only through it. Cupid extension
	// (FlexMatch's compound rules).
	CompoundRule []CompoundRule `json:"compound_rule,omitempty"`

	// Teams names the teams of a match, each with its own size bounds
	// (5 hunters against 1 monster). The alliance must agree with them:
	// as many teams, the smallest minimum and the largest maximum.
	// Matches list their teams in this order. Cupid extension (FlexMatch's
	// teams).
	Teams []NamedTeam `json:"teams,omitempty"`

	// TeamComparison compares a team's players, or an aggregate of them,
	// with a constant or with another team's aggregate: rules aimed at one
	// team ("the monster wants to be one", "the monster's skill at least
	// what the hunters ask for"). Cupid extension (FlexMatch's comparison
	// rules on teams[name]).
	TeamComparison []TeamComparisonRule `json:"team_comparison,omitempty"`

	// SortRule orders the candidates an anchor picks from by a numeric
	// attribute or by its distance from the anchor's value, instead of
	// oldest first. Cupid extension (FlexMatch's absoluteSort and
	// distanceSort; sort.go).
	SortRule []SortRule `json:"sort_rule,omitempty"`

	// Quality weighs the criteria of a good match (after the War Robots
	// article on match quality) into the one score the engine maximises. Cupid
	// extension.
	Quality *QualityWeights `json:"quality,omitempty"`

	// src remembers where Parse found each value, so that Validate can
	// point at lines and columns. Nil for a Ruleset built in Go.
	src *source
}

// Alliance is the team layout of a match ("alliance" in AccelByte's match
// rulesets). All four numbers are counts; a free-for-all is one team.
type Alliance struct {
	// MinNumber is the fewest teams a match may start with.
	MinNumber int `json:"min_number"`
	// MaxNumber is the most teams a match may have.
	MaxNumber int `json:"max_number"`
	// PlayerMinNumber is the fewest players a team may start with.
	PlayerMinNumber int `json:"player_min_number"`
	// PlayerMaxNumber is the most players a team may hold; it also caps the
	// size of a party, since parties are never split.
	PlayerMaxNumber int `json:"player_max_number"`
}

// AllianceFlex is one step of alliance_flexing_rule: after Duration seconds
// of waiting, the team layout becomes the given numbers. A number left at
// zero keeps the value of the step before it.
type AllianceFlex struct {
	// Duration is the wait, in seconds, after which this step applies.
	Duration int `json:"duration"`
	Alliance
}

// Criteria names for MatchingRule and FlexingRule.
const (
	// CriteriaDistance: every ticket's value must be within Reference of the
	// pivot ticket's value (AccelByte's match rulesets).
	CriteriaDistance = "distance"
	// CriteriaSpread: the highest and lowest values in the whole match must
	// be within Reference of each other. Cupid extension; stricter than
	// distance, which allows a spread of twice the reference.
	CriteriaSpread = "spread"
)

// MatchingRule says one numeric attribute must be close between tickets.
type MatchingRule struct {
	// Attribute is the ticket or player attribute compared (a party's value
	// is its players' average).
	Attribute string `json:"attribute"`
	// Criteria is how values are compared: "distance" or "spread".
	Criteria string `json:"criteria"`
	// Reference is the allowed difference before any flexing.
	Reference float64 `json:"reference"`
	// Max is the attribute's largest possible value; dividing by it
	// normalises the attribute so that several attributes can be balanced
	// and scored together. Zero: not given.
	Max float64 `json:"max,omitempty"`
	// Weight is the attribute's share when team balancing and the skill
	// criteria of the quality score combine several attributes. Nil means 1.
	// Cupid extension.
	Weight *float64 `json:"weight,omitempty"`
	// IsForBalancing makes the attribute count when teams are rebalanced.
	// When no rule sets it, the first matching rule is used.
	IsForBalancing bool `json:"is_for_balancing,omitempty"`
	// PartyAggregate is how a party's players reduce to the one value this
	// rule compares: "avg" (empty: the default), "min" or "max". Cupid
	// extension (FlexMatch's partyAggregation).
	PartyAggregate string `json:"party_aggregate,omitempty"`
	// MinDistance, with criteria distance, is the smallest difference
	// allowed: every ticket's value at least this far from the pivot's
	// (FlexMatch's minDistance). Nil: none. Flexing may only lower it.
	// Cupid extension.
	MinDistance *float64 `json:"min_distance,omitempty"`
}

// FlexingRule is one step of flexing_rule: after Duration seconds the
// matching rule with the same Attribute and Criteria allows Reference.
type FlexingRule struct {
	// Duration is the wait, in seconds, after which this step applies.
	Duration int `json:"duration"`
	// Attribute names the matching rule relaxed.
	Attribute string `json:"attribute"`
	// Criteria must equal the matching rule's criteria.
	Criteria string `json:"criteria"`
	// Reference is the new allowed difference; it may only grow.
	Reference float64 `json:"reference"`
	// MinDistance is the new smallest difference of a rule that has one;
	// it may only fall. Nil: unchanged.
	MinDistance *float64 `json:"min_distance,omitempty"`
}

// Match option types.
const (
	// OptionAll: the players' values must be the same set.
	OptionAll = "all"
	// OptionAny: the players must share at least one value.
	OptionAny = "any"
	// OptionUnique: every player must have the option, with a different
	// value from the others.
	OptionUnique = "unique"
)

// MatchOptions holds the custom parameters compared between tickets.
type MatchOptions struct {
	// Options lists the parameters, each compared on its own.
	Options []MatchOption `json:"options"`
}

// MatchOption is one custom parameter: its key in the ticket's attributes
// and how players' values must relate.
type MatchOption struct {
	// Name is the ticket attribute key the client sets.
	Name string `json:"name"`
	// Type is "all", "any" or "unique".
	Type string `json:"type"`
}

// Flex is one relaxation step of a Cupid extension rule: after Duration
// seconds, the rule's flexible number becomes Value.
type Flex struct {
	// Duration is the wait, in seconds, after which this step applies.
	Duration int `json:"duration"`
	// Value replaces the rule's flexible number.
	Value float64 `json:"value"`
}

// Comparison operators for ComparisonRule.
const (
	OpLess         = "<"
	OpLessEqual    = "<="
	OpEqual        = "="
	OpNotEqual     = "!="
	OpGreaterEqual = ">="
	OpGreater      = ">"
)

// ComparisonRule compares an attribute. With a Value, every player's
// attribute must satisfy "attribute Operator Value" (a gate such as
// level >= 10). Without one, tickets are compared with each other and only
// "=" and "!=" are allowed (same game_version; different teams' clans).
type ComparisonRule struct {
	// Attribute is the ticket or player attribute compared.
	Attribute string `json:"attribute"`
	// Operator is one of < <= = != >= >.
	Operator string `json:"operator"`
	// Value is the constant compared with: a number or a string. Nil
	// compares tickets with each other.
	Value *Literal `json:"value,omitempty"`
	// Flexing relaxes a numeric Value over time (level >= 10, then >= 5).
	Flexing []Flex `json:"flexing,omitempty"`
	// PartyAggregate, for a numeric gate, compares one value per party
	// (its players' avg, min or max) instead of every player. Empty:
	// every player must pass. Cupid extension (FlexMatch's
	// partyAggregation).
	PartyAggregate string `json:"party_aggregate,omitempty"`
}

// NamedTeam is one team of a match with its own size bounds.
type NamedTeam struct {
	// Name identifies the team in rules aimed at it.
	Name string `json:"name"`
	// PlayerMinNumber is the fewest players the team may start with.
	PlayerMinNumber int `json:"player_min_number"`
	// PlayerMaxNumber is the most players the team may hold.
	PlayerMaxNumber int `json:"player_max_number"`
}

// TeamComparisonRule compares the players of one team (or of each team)
// with a constant or with an aggregate of another team. Without Aggregate
// every player (every party, with PartyAggregate) must pass; with it, the
// team's aggregate must.
type TeamComparisonRule struct {
	// Team names the team judged (a name in teams); empty judges every
	// team on its own.
	Team string `json:"team,omitempty"`
	// Attribute is the numeric player attribute compared.
	Attribute string `json:"attribute"`
	// Aggregate reduces the team's values to one: avg, min, max, sum,
	// stddev or count (the number of players). Empty: each player.
	Aggregate string `json:"aggregate,omitempty"`
	// PartyAggregate, without Aggregate, compares one value per party.
	PartyAggregate string `json:"party_aggregate,omitempty"`
	// Operator is one of < <= = != >= >.
	Operator string `json:"operator"`
	// Value is the constant compared with; exactly one of Value and
	// Reference is set.
	Value *float64 `json:"value,omitempty"`
	// Reference is another team's aggregate compared with.
	Reference *TeamValue `json:"reference,omitempty"`
	// Flexing relaxes Value over time.
	Flexing []Flex `json:"flexing,omitempty"`
}

// TeamValue is an aggregate of one attribute over one team's players.
type TeamValue struct {
	// Team names the team (a name in teams).
	Team string `json:"team"`
	// Attribute is the numeric player attribute.
	Attribute string `json:"attribute"`
	// Aggregate is avg, min, max, sum, stddev or count.
	Aggregate string `json:"aggregate"`
}

// Literal is a JSON number or string constant in a rule.
type Literal struct {
	// IsString tells which of the two fields holds the value.
	IsString bool
	// Number is the value when IsString is false.
	Number float64
	// String is the value when IsString is true.
	String string
}

// Collection operations for CollectionRule.
const (
	// CollectionIntersection: the lists of the tickets in scope must have
	// between MinCount and MaxCount values in common.
	CollectionIntersection = "intersection"
	// CollectionContains: every ticket's list must contain Value; with
	// MinCount or MaxCount, the number of players whose list (or string)
	// holds Value must lie between them instead ("at most 5 medics").
	CollectionContains = "contains"
	// CollectionPlayerIDs: the number of the scope's players whose id is in
	// some list of the scope's players must lie between MinCount (default
	// 0) and MaxCount: block lists (max 0) and wanted players (min 1).
	CollectionPlayerIDs = "player_ids"
)

// Scopes say over which tickets a rule is evaluated.
const (
	// ScopeMatch evaluates over every ticket of the match.
	ScopeMatch = "match"
	// ScopeTeam evaluates over the tickets of each team separately.
	ScopeTeam = "team"
)

// CollectionRule constrains a string-list attribute (languages spoken, maps
// wanted, DLCs owned).
type CollectionRule struct {
	// Attribute is the string-list attribute.
	Attribute string `json:"attribute"`
	// Operation is "intersection", "contains" or "player_ids".
	Operation string `json:"operation"`
	// Value is the string that "contains" looks for.
	Value string `json:"value,omitempty"`
	// MinCount is the fewest shared values "intersection" accepts; nil
	// means 1.
	MinCount *int `json:"min_count,omitempty"`
	// MaxCount is the most shared values "intersection" accepts; nil means
	// no limit.
	MaxCount *int `json:"max_count,omitempty"`
	// Scope is "match" (default) or "team".
	Scope string `json:"scope,omitempty"`
	// Flexing lowers MinCount over time; each Value is a count.
	Flexing []Flex `json:"flexing,omitempty"`
	// DisableAfter turns a "player_ids" rule off once the ticket has
	// waited this many seconds: "not with anyone I met lately", then
	// anyone. Zero: never.
	DisableAfter int `json:"disable_after,omitempty"`
}

// AttributeDefault is the value a player attribute takes when neither the
// player nor the ticket sets it.
type AttributeDefault struct {
	// Name is the attribute.
	Name string
	// Value is a number, a string, a list of strings or a map of numbers.
	Value cupid.Value
}

// MarshalJSON writes the default as it is written in a ruleset:
// {"name": …, "value": 10 | "x" | ["a", "b"] | {"sword": 10}}.
func (a AttributeDefault) MarshalJSON() ([]byte, error) {
	var v any
	switch a.Value.Kind {
	case cupid.KindNumber:
		v = a.Value.Number
	case cupid.KindString:
		v = a.Value.String
	case cupid.KindStrings:
		v = a.Value.Strings
		if a.Value.Strings == nil {
			v = []string{}
		}
	case cupid.KindNumbers:
		v = a.Value.Map
		if a.Value.Map == nil {
			v = map[string]float64{}
		}
	}
	return json.Marshal(struct {
		Name  string `json:"name"`
		Value any    `json:"value"`
	}{a.Name, v})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (a *AttributeDefault) UnmarshalJSON(data []byte) error {
	var raw struct {
		Name  string          `json:"name"`
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	a.Name = raw.Name
	var f float64
	var s string
	var list []string
	var m map[string]float64
	switch {
	case json.Unmarshal(raw.Value, &f) == nil:
		a.Value = cupid.Number(f)
	case json.Unmarshal(raw.Value, &s) == nil:
		a.Value = cupid.String(s)
	case json.Unmarshal(raw.Value, &list) == nil:
		a.Value = cupid.Strings(list...)
	case json.Unmarshal(raw.Value, &m) == nil && m != nil:
		a.Value = cupid.Numbers(m)
	default:
		return fmt.Errorf("value must be a number, a string, a list of strings or a map of numbers")
	}
	return nil
}

// Team size policies for Ruleset.TeamSizes.
const (
	// TeamSizesEqual: every team of a match has the same number of players.
	TeamSizesEqual = "equal"
	// TeamSizesWithinOne: team sizes differ by at most one player.
	TeamSizesWithinOne = "within_one"
)

// CompoundRule is a boolean statement over the names of filters, such as
// "or(close_skill, same_map)". The filters it names must share one scope.
type CompoundRule struct {
	// Name identifies the rule in reports; unique among filters and
	// compound rules.
	Name string `json:"name"`
	// Statement is and(…), or(…), xor(…), not(…) over filter names,
	// nested freely.
	Statement string `json:"statement"`
	// DisableAfter turns the rule off once the ticket has waited this many
	// seconds. Zero: never.
	DisableAfter int `json:"disable_after,omitempty"`
}

// Aggregates for TeamRule and MatchTotalRule.
const (
	AggregateAvg    = "avg"
	AggregateMin    = "min"
	AggregateMax    = "max"
	AggregateSum    = "sum"
	AggregateStddev = "stddev"
	// AggregateCount is the number of players (team_comparison only).
	AggregateCount = "count"
)

// What a team rule measures each team against.
const (
	AgainstTeams = "teams"
	AgainstMatch = "match"
)

// TeamRule bounds how far apart the teams of a match may be on an aggregate
// of one numeric attribute: max(team aggregate) - min(team aggregate) must
// not exceed MaxDifference.
type TeamRule struct {
	// Attribute is the numeric player attribute aggregated.
	Attribute string `json:"attribute"`
	// Aggregate reduces a team's values: avg, min, max, sum or stddev.
	Aggregate string `json:"aggregate"`
	// PartyAggregate, when set, first reduces each party to one value
	// (avg, min or max) so a party counts once; empty counts every player.
	PartyAggregate string `json:"party_aggregate,omitempty"`
	// MaxDifference is the largest allowed gap between teams.
	MaxDifference float64 `json:"max_difference"`
	// Against is "teams" (empty: the default), the gap between the
	// highest and the lowest team aggregate, or "match", each team's
	// aggregate against the same aggregate over every player of the match
	// (FlexMatch's distance of team averages from the match average).
	Against string `json:"against,omitempty"`
	// Flexing raises MaxDifference over time.
	Flexing []Flex `json:"flexing,omitempty"`
}

// MatchTotalRule bounds an aggregate of one numeric attribute over every
// player of the match.
type MatchTotalRule struct {
	// Attribute is the numeric player attribute aggregated.
	Attribute string `json:"attribute"`
	// Aggregate reduces the match's values: avg, min, max, sum or stddev.
	Aggregate string `json:"aggregate"`
	// Min is the lowest accepted aggregate; nil: no lower bound.
	Min *float64 `json:"min,omitempty"`
	// Max is the highest accepted aggregate; nil: no upper bound.
	Max *float64 `json:"max,omitempty"`
	// Flexing widens the bounds over time.
	Flexing []RangeFlex `json:"flexing,omitempty"`
}

// RangeFlex is one relaxation step of a two-sided bound: after Duration
// seconds, the bounds given replace the previous ones (a nil bound is kept).
type RangeFlex struct {
	// Duration is the wait, in seconds, after which this step applies.
	Duration int `json:"duration"`
	// Min replaces the lower bound when set.
	Min *float64 `json:"min,omitempty"`
	// Max replaces the upper bound when set.
	Max *float64 `json:"max,omitempty"`
}

// RoleRule sets how many players of each role a team takes. A player's roles
// come from the reserved ticket key "role" (a string, or a list of the roles
// the player accepts).
type RoleRule struct {
	// Attribute is the player attribute holding roles; empty means "role".
	Attribute string `json:"attribute,omitempty"`
	// Quotas lists the roles and their per-team bounds. A role not listed
	// is not accepted.
	Quotas []RoleQuota `json:"quotas"`
}

// RoleQuota bounds one role in every team.
type RoleQuota struct {
	// Name is the role ("tank", "healer", …).
	Name string `json:"name"`
	// Min is the fewest players of this role a team needs.
	Min int `json:"min,omitempty"`
	// Max is the most players of this role a team may hold; nil means no
	// limit beyond the team size.
	Max *int `json:"max,omitempty"`
	// Flexing lowers Min over time; each Value is a count.
	Flexing []Flex `json:"flexing,omitempty"`
}

// CrossPlay matches players across platforms only where both accept it:
// each player's current platform must be in every other player's accepted
// platforms.
type CrossPlay struct {
	// AcceptedAttribute is the string-list attribute of platforms a player
	// accepts; empty means the reserved key "cross_platform".
	AcceptedAttribute string `json:"accepted_attribute,omitempty"`
	// CurrentAttribute is the string attribute of the player's own
	// platform; empty means the reserved key "current_platform".
	CurrentAttribute string `json:"current_attribute,omitempty"`
}

// TicketQuery is the ticket_query rule: which ticket attribute carries a
// ticket's query, in which syntax, and whose query must accept whom.
type TicketQuery struct {
	// Attribute is the ticket-wide string attribute holding the query. A
	// ticket without it accepts every other ticket.
	Attribute string `json:"attribute"`
	// Syntax is the query language; "nakama" (the default) is the only one.
	Syntax string `json:"syntax,omitempty"`
	// Direction is "one_way" (the default): the anchor's query must accept
	// every other ticket of the match; or "mutual": every ticket's query
	// must accept every other ticket.
	Direction string `json:"direction,omitempty"`
}

// Expression scopes for ExprRule.
const (
	// ExprPair: the expression sees "ticket" and "candidate" and decides
	// whether two tickets may share a match.
	ExprPair = "pair"
	// ExprMatch: the expression sees "match" and "teams" and judges a
	// proposed match as a whole.
	ExprMatch = "match"
)

// ExprRule is a custom rule in the expr-lang language, compiled once when the
// ruleset loads. As a filter it must return a boolean; as a score, a number
// in [0,1] (values outside are clamped).
type ExprRule struct {
	// Name identifies the rule in "why am I waiting" answers and quality
	// parts.
	Name string `json:"name"`
	// Scope is "pair" (default for filters) or "match" (default for
	// scores).
	Scope string `json:"scope,omitempty"`
	// Expr is the expression's source.
	Expr string `json:"expr"`
	// Weight is a score's share in the quality average; nil means 1.
	// Filters take no weight.
	Weight *float64 `json:"weight,omitempty"`
	// DisableAfter turns a filter off once the ticket has waited this many
	// seconds. Zero: never.
	DisableAfter int `json:"disable_after,omitempty"`
	// excludes is set on the filter of a block-list collection rule: see
	// Expr.Excludes. Never read from JSON.
	excludes string
}

// QualityWeights weighs the criteria of the War Robots article on match
// quality into one match score. Each criterion scores from 0 (bad) to 1
// (best); the match score is their weighted average, optionally of their
// square roots so that fixing a bad match counts for more than polishing a
// good one. A nil weight takes the default documented in docs/rulesets.md;
// zero switches a criterion off.
type QualityWeights struct {
	// SkillGap weighs how close the teams' average skills are.
	SkillGap *float64 `json:"skill_gap,omitempty"`
	// SkillSpread weighs how close the players inside each team are.
	SkillSpread *float64 `json:"skill_spread,omitempty"`
	// Parties weighs parties facing parties of the same size.
	Parties *float64 `json:"parties,omitempty"`
	// Ping weighs low latency, scored on a non-linear curve.
	Ping *float64 `json:"ping,omitempty"`
	// Variety weighs not meeting the same opponents again.
	Variety *float64 `json:"variety,omitempty"`
	// Wait weighs short waits.
	Wait *float64 `json:"wait,omitempty"`
	// Roles weighs how well role quotas are met beyond their minimums.
	Roles *float64 `json:"roles,omitempty"`
	// SkillAttribute names the matching rule attribute that is "skill";
	// empty: the balancing attributes.
	SkillAttribute string `json:"skill_attribute,omitempty"`
	// PingOkMs is the latency that still scores 1.
	PingOkMs *int `json:"ping_ok_ms,omitempty"`
	// PingBadMs is the latency that scores 0.
	PingBadMs *int `json:"ping_bad_ms,omitempty"`
	// WaitBadSeconds is the wait that scores 0 on the wait criterion.
	WaitBadSeconds *int `json:"wait_bad_seconds,omitempty"`
	// Sqrt takes the square root of every criterion before averaging; nil
	// means true (the War Robots article's advice).
	Sqrt *bool `json:"sqrt,omitempty"`
}

// Reserved ticket attribute keys (AccelByte's match rulesets). Clients must
// not use them for anything else; the engine reads them with the meaning given
// here.
const (
	// KeyClientVersion keeps incompatible game versions apart.
	KeyClientVersion = "client_version"
	// KeyServerName asks for a named local dedicated server.
	KeyServerName = "server_name"
	// KeyRole holds the player's role preference.
	KeyRole = "role"
	// KeyCrossPlatform holds the platforms the player accepts to play with.
	KeyCrossPlatform = "cross_platform"
	// KeyCurrentPlatform holds the player's own platform.
	KeyCurrentPlatform = "current_platform"
	// KeyNewSessionOnly, when true, keeps the ticket out of backfill.
	KeyNewSessionOnly = "new_session_only"
)

// MarshalJSON writes the literal as a plain JSON number or string, the way
// it is written in a ruleset.
func (l Literal) MarshalJSON() ([]byte, error) {
	if l.IsString {
		return json.Marshal(l.String)
	}
	return json.Marshal(l.Number)
}

// UnmarshalJSON reads a plain JSON number or string, so that a Ruleset can
// also be decoded with encoding/json (Parse does its own, stricter decoding).
func (l *Literal) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		*l = Literal{IsString: true, String: s}
		return nil
	}
	var f float64
	if err := json.Unmarshal(data, &f); err != nil {
		return fmt.Errorf("value must be a number or a string")
	}
	*l = Literal{Number: f}
	return nil
}
