package opponent

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cupid-match/cupid"
)

// Limits on inputs. They keep one malformed or hostile model from costing
// unbounded memory or evaluation time; every cached entry is at most this big.
const (
	maxStrategies     = 8    // additional bucketing strategies (a bucket key is a fixed array)
	maxIDLen          = 128  // bytes in a player id
	maxStringLen      = 256  // bytes in a string attribute or label
	maxListLen        = 64   // items in a string-list attribute
	maxAttributes     = 64   // declared attributes per side
	maxMMRBuckets     = 4096 // MMR buckets per label combination
	defaultExcludeMax = 1024
	maxExpressionLen  = 4096
	maxHold           = 24 * time.Hour
	maxShield         = 30 * 24 * time.Hour
)

// Config describes one Finder: its cache size, MMR buckets, bucketing
// strategies, attribute schema, quality expression and thresholds. It embeds
// in the server's YAML/JSON configuration; zero values of optional fields take
// the defaults documented on each field (see WithDefaults). Fields that have
// no sensible default (cache size, MMR range, bucket count) are required.
type Config struct {
	// PlayerCacheSize bounds the total number of entries over all buckets,
	// and so the memory of the finder. Required, > 0.
	PlayerCacheSize int `json:"player_cache_size" yaml:"player_cache_size"`
	// MinMMR and MaxMMR span the MMR buckets; values outside clamp to the
	// first or last bucket. Required, MinMMR < MaxMMR.
	MinMMR float64 `json:"min_mmr" yaml:"min_mmr"`
	MaxMMR float64 `json:"max_mmr" yaml:"max_mmr"`
	// MmrBucketCount is how many equal MMR ranges the span is cut into.
	// Required, 1..4096.
	MmrBucketCount int `json:"mmr_bucket_count" yaml:"mmr_bucket_count"`
	// BucketMinSize is the smallest a bucket is ever sized to, so a range no
	// sample happened to hit still keeps some players. Default 16.
	BucketMinSize int `json:"bucket_min_size,omitempty" yaml:"bucket_min_size,omitempty"`
	// BucketInitialSize is the size of a bucket created before any sizing
	// model exists. Default 1024 (clamped to the cache size); never below
	// BucketMinSize.
	BucketInitialSize int `json:"bucket_initial_size,omitempty" yaml:"bucket_initial_size,omitempty"`
	// MaxBuckets bounds how many buckets (MMR range × label combination)
	// may exist; an entry that would need one more is ignored. Default and
	// maximum PlayerCacheSize / BucketMinSize, so every bucket can keep its
	// minimum size inside the cache.
	MaxBuckets int `json:"max_buckets,omitempty" yaml:"max_buckets,omitempty"`

	// Strategies are the additional bucketing strategies, besides MMR.
	Strategies []Strategy `json:"strategies,omitempty" yaml:"strategies,omitempty"`
	// Attributes declares the attributes an entry (defender) may carry.
	// Declaring them lets the finder store them compactly and check the
	// quality expression when it is compiled.
	Attributes []Attribute `json:"attributes,omitempty" yaml:"attributes,omitempty"`
	// QueryAttributes declares the attributes a query (attacker) may carry.
	QueryAttributes []Attribute `json:"query_attributes,omitempty" yaml:"query_attributes,omitempty"`

	// Quality holds the expressions that judge a candidate. Empty means
	// every candidate is possible and nearer MMR is better.
	Quality Quality `json:"quality,omitempty" yaml:"quality,omitempty"`
	// QualityFunc replaces Quality for embedders who prefer Go. Setting
	// both is an error.
	QualityFunc QualityFunc `json:"-" yaml:"-"`

	// MaxCandidates bounds how many cached entries one query examines, as
	// the seed does to keep a query fast however full the cache. Default 32.
	MaxCandidates int `json:"max_candidates,omitempty" yaml:"max_candidates,omitempty"`
	// BaseBucketRadius is how many MMR buckets on each side of the
	// attacker's are searched with zero retries. Default 0.
	BaseBucketRadius int `json:"base_bucket_radius,omitempty" yaml:"base_bucket_radius,omitempty"`
	// RetryBucketWidening is how many more MMR buckets on each side every
	// retry adds. Default 1.
	RetryBucketWidening int `json:"retry_bucket_widening,omitempty" yaml:"retry_bucket_widening,omitempty"`
	// BoundaryFraction is how close (as a fraction of a bucket's width) an
	// attacker's MMR must be to its bucket's edge for the neighbouring
	// bucket to be searched too, alternating with its own. Default 0.25,
	// range (0, 0.5].
	BoundaryFraction float64 `json:"boundary_fraction,omitempty" yaml:"boundary_fraction,omitempty"`
	// MaxExcluded bounds a query's exclusion list. Default 1024.
	MaxExcluded int `json:"max_excluded,omitempty" yaml:"max_excluded,omitempty"`

	// PlayerRemoveAfterCandidateOfferThreshold removes an offered entry
	// from the cache when its bucket is at least this full, so the same
	// defender is not attacked over and over. Default "always".
	PlayerRemoveAfterCandidateOfferThreshold Threshold `json:"player_remove_after_candidate_offer_threshold,omitempty" yaml:"player_remove_after_candidate_offer_threshold,omitempty"`
	// PlayerIgnoreUpdateInsertThreshold ignores updates that would add a
	// new entry to a bucket at least this full (updates of entries already
	// cached always apply). Default "0.9"; use "never" when updates are the
	// only source of players.
	PlayerIgnoreUpdateInsertThreshold Threshold `json:"player_ignore_update_insert_threshold,omitempty" yaml:"player_ignore_update_insert_threshold,omitempty"`

	// AllowMultipleEntriesPerPlayer lets a player have one entry per
	// bucket (several defence setups or MMRs). See Model.
	AllowMultipleEntriesPerPlayer bool `json:"allow_multiple_entries_per_player,omitempty" yaml:"allow_multiple_entries_per_player,omitempty"`
	// MaxEntriesPerPlayer bounds the entries of one update. Default 8
	// with multiple entries, 1 otherwise.
	MaxEntriesPerPlayer int `json:"max_entries_per_player,omitempty" yaml:"max_entries_per_player,omitempty"`
	// ReturnModel makes every successful query return the chosen entry,
	// as the seed's ReturnModelInQueryResponse; a query can also ask.
	ReturnModel bool `json:"return_model,omitempty" yaml:"return_model,omitempty"`

	// FakeOpponents answers with a generated opponent when nothing real fits.
	FakeOpponents FakeOpponents `json:"fake_opponents,omitempty" yaml:"fake_opponents,omitempty"`
	// Scan paces the periodic scan of the player table.
	Scan Scan `json:"scan,omitempty" yaml:"scan,omitempty"`
	// Sizing tunes dynamic bucket sizing.
	Sizing Sizing `json:"sizing,omitempty" yaml:"sizing,omitempty"`

	// Reservations hold an offered defender for the attacker while the
	// attack runs, so no other attacker is offered him meanwhile.
	Reservations Reservations `json:"reservations,omitempty" yaml:"reservations,omitempty"`
	// Shield is how long a defender may not be offered after an attack on
	// him is confirmed; 0 (the default) gives none. It needs reservations,
	// since confirming one is how an attack is told.
	Shield Duration `json:"shield,omitempty" yaml:"shield,omitempty"`
	// MaxPlayerStates bounds the players that are held, shielded or
	// online at once, the memory those flags take. A reservation or an
	// online flag past it is refused as resource exhausted. Default twice
	// PlayerCacheSize.
	MaxPlayerStates int `json:"max_player_states,omitempty" yaml:"max_player_states,omitempty"`
}

// Reservations configures reserved offers: a query that reserves (or every
// query, with Always) holds the defender it is offered for Hold, during
// which no other query is offered him; the attack is then confirmed (a
// shield starts) or released, and a reservation neither confirmed nor
// released by then lapses by itself.
type Reservations struct {
	Enabled bool `json:"enabled,omitempty" yaml:"enabled,omitempty"`
	// Hold is how long a reservation lasts. Default 5m.
	Hold Duration `json:"hold,omitempty" yaml:"hold,omitempty"`
	// Always makes every successful query reserve, whether it asks or not.
	Always bool `json:"always,omitempty" yaml:"always,omitempty"`
}

// Strategy is one additional bucketing strategy: entries are bucketed by the
// label an attribute holds, and a query searches buckets by how its own label
// compares with theirs.
type Strategy struct {
	// Name names the strategy in bucket keys, the sizing model and errors.
	Name string `json:"name" yaml:"name"`
	// Kind is "distinct" (labels are equal or not; every other label is
	// equally wrong) or "ranged" (labels are ordered; nearer is better).
	Kind string `json:"kind" yaml:"kind"`
	// Hard makes the label a requirement: a distinct label must be equal,
	// a ranged one within MaxDistance. A soft label is preferred: other
	// labels are searched only when the preferred ones yield nobody.
	Hard bool `json:"hard,omitempty" yaml:"hard,omitempty"`
	// Attribute is the entry attribute (string or number) holding the label.
	Attribute string `json:"attribute" yaml:"attribute"`
	// QueryAttribute is the query attribute holding the attacker's label;
	// default Attribute. A query may omit a soft label (no preference) but
	// not a hard one.
	QueryAttribute string `json:"query_attribute,omitempty" yaml:"query_attribute,omitempty"`
	// MaxDistance is, for a hard ranged strategy, how far a label may be
	// from the attacker's. Default 0 (equal only).
	MaxDistance float64 `json:"max_distance,omitempty" yaml:"max_distance,omitempty"`
	// Order ranks the string labels of a ranged strategy, lowest first;
	// numeric ranged labels need none.
	Order []string `json:"order,omitempty" yaml:"order,omitempty"`
}

// The kinds of bucketing strategies.
const (
	KindDistinct = "distinct"
	KindRanged   = "ranged"
)

// Attribute declares one attribute: its name and type ("number", "string"
// or "strings").
type Attribute struct {
	Name string `json:"name" yaml:"name"`
	Type string `json:"type" yaml:"type"`
}

// Quality is the ruleset-style judgement of a candidate, as two expr-lang
// expressions compiled once at configuration. Names available: player.mmr,
// player.id, player.<attribute>, query.mmr, query.id, query.<attribute> and
// retries. Ranges (a..b) and wall-clock builtins are refused, and every
// evaluation runs under a memory budget, so a candidate costs bounded time.
type Quality struct {
	// Filter says whether a candidate is possible at all; empty means true.
	Filter string `json:"filter,omitempty" yaml:"filter,omitempty"`
	// Score says how good a possible candidate is; higher is better.
	// Empty means -abs(query.mmr - player.mmr).
	Score string `json:"score,omitempty" yaml:"score,omitempty"`
	// MaxNodes bounds the size of each expression. Default 256.
	MaxNodes int `json:"max_nodes,omitempty" yaml:"max_nodes,omitempty"`
}

// FakeOpponents configures generated opponents.
type FakeOpponents struct {
	// Enabled answers FAKE_OPPONENT when no real candidate fits.
	Enabled bool `json:"enabled,omitempty" yaml:"enabled,omitempty"`
	// MMRJitter is the largest distance between the attacker's MMR and the
	// fake's; 0 gives the attacker's MMR exactly.
	MMRJitter float64 `json:"mmr_jitter,omitempty" yaml:"mmr_jitter,omitempty"`
	// Func replaces the default generator for embedders; seq numbers the
	// fakes of this finder, so the output can replay.
	Func func(q *Query, seq uint64) Entry `json:"-" yaml:"-"`
}

// Scan paces the periodic scan of the player table: the finder plans, the
// server fetches. Off means the cache is filled by updates alone.
type Scan struct {
	Enabled bool `json:"enabled,omitempty" yaml:"enabled,omitempty"`
	// Tick is the time between fetches. Default 1s.
	Tick Duration `json:"tick,omitempty" yaml:"tick,omitempty"`
	// MinFetch is the batch size when the cache is full. Default 100.
	MinFetch int `json:"min_fetch,omitempty" yaml:"min_fetch,omitempty"`
	// MaxFetch is the batch size when the cache is empty. Default 1000.
	MaxFetch int `json:"max_fetch,omitempty" yaml:"max_fetch,omitempty"`
}

// Sizing tunes dynamic bucket sizing.
type Sizing struct {
	// Interval is how often the server should call Rebalance (see
	// RebalanceDue). Default 10m.
	Interval Duration `json:"interval,omitempty" yaml:"interval,omitempty"`
	// MinSamples is how many sampled labels a rebalance needs before it
	// replaces the model. Default 1000.
	MinSamples int `json:"min_samples,omitempty" yaml:"min_samples,omitempty"`
}

// Threshold is a bucket fill level (entries / size) at or above which a rule
// applies: "always" (0), "never", or a number from 0 to 1. It is text so a
// config file can say "never"; an empty Threshold takes the field's default.
type Threshold string

// Threshold values with names.
const (
	ThresholdAlways Threshold = "always"
	ThresholdNever  Threshold = "never"
)

// UnmarshalJSON accepts a JSON number as well as a string, so 0.75 and
// "0.75" both work.
func (t *Threshold) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*t = Threshold(s)
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("threshold must be a number or \"always\"/\"never\"")
	}
	*t = Threshold(strconv.FormatFloat(f, 'g', -1, 64))
	return nil
}

// level parses the threshold into a fill level; never is +Inf so no fill
// reaches it.
func (t Threshold) level() (float64, error) {
	switch strings.ToLower(strings.TrimSpace(string(t))) {
	case "always":
		return 0, nil
	case "never":
		return math.Inf(1), nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(string(t)), 64)
	if err != nil {
		return 0, fmt.Errorf("must be \"always\", \"never\" or a number from 0 to 1, got %q", string(t))
	}
	if !(f >= 0 && f <= 1) {
		return 0, fmt.Errorf("must be from 0 to 1, got %v", f)
	}
	return f, nil
}

// Duration is a time.Duration written as text ("500ms", "10s") in JSON and
// YAML, which plain time.Duration is not in JSON.
type Duration time.Duration

// MarshalText writes the duration as Go duration text.
func (d Duration) MarshalText() ([]byte, error) {
	return []byte(time.Duration(d).String()), nil
}

// UnmarshalText reads Go duration text.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("%q is not a duration such as 500ms, 10s or 5m", b)
	}
	*d = Duration(v)
	return nil
}

// Attribute types.
const (
	TypeNumber  = "number"
	TypeString  = "string"
	TypeStrings = "strings"
)

// WithDefaults returns the config with every unset optional field given its
// default; the server can show it as the effective configuration.
func (c Config) WithDefaults() Config {
	if c.BucketMinSize == 0 {
		c.BucketMinSize = 16
		if c.PlayerCacheSize > 0 && c.BucketMinSize > c.PlayerCacheSize {
			c.BucketMinSize = c.PlayerCacheSize
		}
	}
	if c.BucketInitialSize == 0 {
		c.BucketInitialSize = 1024
		if c.PlayerCacheSize > 0 && c.BucketInitialSize > c.PlayerCacheSize {
			c.BucketInitialSize = c.PlayerCacheSize
		}
		if c.BucketInitialSize < c.BucketMinSize {
			c.BucketInitialSize = c.BucketMinSize
		}
	}
	if c.MaxBuckets == 0 && c.BucketMinSize > 0 && c.PlayerCacheSize > 0 {
		c.MaxBuckets = c.PlayerCacheSize / c.BucketMinSize
	}
	if c.MaxCandidates == 0 {
		c.MaxCandidates = 32
	}
	if c.RetryBucketWidening == 0 {
		c.RetryBucketWidening = 1
	}
	if c.BoundaryFraction == 0 {
		c.BoundaryFraction = 0.25
	}
	if c.MaxExcluded == 0 {
		c.MaxExcluded = defaultExcludeMax
	}
	if c.PlayerRemoveAfterCandidateOfferThreshold == "" {
		c.PlayerRemoveAfterCandidateOfferThreshold = ThresholdAlways
	}
	if c.PlayerIgnoreUpdateInsertThreshold == "" {
		c.PlayerIgnoreUpdateInsertThreshold = "0.9"
	}
	if c.MaxEntriesPerPlayer == 0 {
		c.MaxEntriesPerPlayer = 1
		if c.AllowMultipleEntriesPerPlayer {
			c.MaxEntriesPerPlayer = 8
		}
	}
	if c.Quality.MaxNodes == 0 {
		c.Quality.MaxNodes = 256
	}
	if c.Scan.Tick == 0 {
		c.Scan.Tick = Duration(time.Second)
	}
	if c.Scan.MinFetch == 0 {
		c.Scan.MinFetch = 100
	}
	if c.Scan.MaxFetch == 0 {
		c.Scan.MaxFetch = 1000
	}
	if c.Sizing.Interval == 0 {
		c.Sizing.Interval = Duration(10 * time.Minute)
	}
	if c.Sizing.MinSamples == 0 {
		c.Sizing.MinSamples = 1000
	}
	if c.Reservations.Hold == 0 {
		c.Reservations.Hold = Duration(5 * time.Minute)
	}
	if c.MaxPlayerStates == 0 && c.PlayerCacheSize > 0 {
		c.MaxPlayerStates = 2 * c.PlayerCacheSize
	}
	return c
}

// Validate reports the first problem of the config (with defaults applied)
// as an invalid error naming the field, or nil. It compiles the quality
// expressions too, so a config that validates also builds a Finder.
func (c Config) Validate() error {
	_, err := compileConfig(c)
	return err
}

func invalid(field, format string, args ...any) error {
	return cupid.Invalid(field, format, args...)
}

// validateFields checks every field of a defaulted config except the
// expressions, which need the schema built from it.
func (c *Config) validateFields() error {
	switch {
	case c.PlayerCacheSize <= 0:
		return invalid("player_cache_size", "must be greater than 0, got %d", c.PlayerCacheSize)
	case c.PlayerCacheSize > 1<<31-1:
		return invalid("player_cache_size", "must be at most %d", 1<<31-1)
	case !cupid.Finite(c.MinMMR):
		return invalid("min_mmr", "must be a finite number")
	case !cupid.Finite(c.MaxMMR):
		return invalid("max_mmr", "must be a finite number")
	case c.MinMMR >= c.MaxMMR:
		return invalid("max_mmr", "must be greater than min_mmr (%v), got %v", c.MinMMR, c.MaxMMR)
	case !cupid.Finite(c.MaxMMR - c.MinMMR):
		return invalid("max_mmr", "the MMR span is too large")
	case c.MmrBucketCount < 1 || c.MmrBucketCount > maxMMRBuckets:
		return invalid("mmr_bucket_count", "must be from 1 to %d, got %d", maxMMRBuckets, c.MmrBucketCount)
	case c.BucketMinSize < 1:
		return invalid("bucket_min_size", "must be at least 1, got %d", c.BucketMinSize)
	case c.BucketMinSize > c.PlayerCacheSize:
		return invalid("bucket_min_size", "must be at most player_cache_size (%d), got %d", c.PlayerCacheSize, c.BucketMinSize)
	case c.BucketInitialSize < c.BucketMinSize:
		return invalid("bucket_initial_size", "must be at least bucket_min_size (%d), got %d", c.BucketMinSize, c.BucketInitialSize)
	case c.BucketInitialSize > c.PlayerCacheSize:
		return invalid("bucket_initial_size", "must be at most player_cache_size (%d), got %d", c.PlayerCacheSize, c.BucketInitialSize)
	case c.MaxBuckets < 1:
		return invalid("max_buckets", "must be at least 1, got %d", c.MaxBuckets)
	case c.MaxBuckets > c.PlayerCacheSize/c.BucketMinSize:
		return invalid("max_buckets", "must be at most player_cache_size / bucket_min_size (%d), got %d", c.PlayerCacheSize/c.BucketMinSize, c.MaxBuckets)
	case c.MaxCandidates < 1:
		return invalid("max_candidates", "must be at least 1, got %d", c.MaxCandidates)
	case c.BaseBucketRadius < 0 || c.BaseBucketRadius > maxMMRBuckets:
		return invalid("base_bucket_radius", "must be from 0 to %d, got %d", maxMMRBuckets, c.BaseBucketRadius)
	case c.RetryBucketWidening < 0 || c.RetryBucketWidening > maxMMRBuckets:
		return invalid("retry_bucket_widening", "must be from 0 to %d, got %d", maxMMRBuckets, c.RetryBucketWidening)
	case !(c.BoundaryFraction > 0 && c.BoundaryFraction <= 0.5):
		return invalid("boundary_fraction", "must be in (0, 0.5], got %v", c.BoundaryFraction)
	case c.MaxExcluded < 0:
		return invalid("max_excluded", "must not be negative, got %d", c.MaxExcluded)
	case c.MaxEntriesPerPlayer < 1:
		return invalid("max_entries_per_player", "must be at least 1, got %d", c.MaxEntriesPerPlayer)
	case !c.AllowMultipleEntriesPerPlayer && c.MaxEntriesPerPlayer != 1:
		return invalid("max_entries_per_player", "must be 1 unless allow_multiple_entries_per_player is set")
	case c.MaxEntriesPerPlayer > maxStrategies*maxMMRBuckets:
		return invalid("max_entries_per_player", "must be at most %d", maxStrategies*maxMMRBuckets)
	case c.Quality.MaxNodes < 1:
		return invalid("quality.max_nodes", "must be at least 1, got %d", c.Quality.MaxNodes)
	case len(c.Quality.Filter) > maxExpressionLen:
		return invalid("quality.filter", "longer than %d bytes", maxExpressionLen)
	case len(c.Quality.Score) > maxExpressionLen:
		return invalid("quality.score", "longer than %d bytes", maxExpressionLen)
	case c.QualityFunc != nil && (c.Quality.Filter != "" || c.Quality.Score != ""):
		return invalid("quality", "set either the expressions or QualityFunc, not both")
	case !cupid.Finite(c.FakeOpponents.MMRJitter) || c.FakeOpponents.MMRJitter < 0:
		return invalid("fake_opponents.mmr_jitter", "must be a finite number ≥ 0, got %v", c.FakeOpponents.MMRJitter)
	case c.Scan.Tick <= 0:
		return invalid("scan.tick", "must be positive, got %v", time.Duration(c.Scan.Tick))
	case c.Scan.MinFetch < 1:
		return invalid("scan.min_fetch", "must be at least 1, got %d", c.Scan.MinFetch)
	case c.Scan.MaxFetch < c.Scan.MinFetch:
		return invalid("scan.max_fetch", "must be at least scan.min_fetch (%d), got %d", c.Scan.MinFetch, c.Scan.MaxFetch)
	case c.Sizing.Interval <= 0:
		return invalid("sizing.interval", "must be positive, got %v", time.Duration(c.Sizing.Interval))
	case c.Sizing.MinSamples < 1:
		return invalid("sizing.min_samples", "must be at least 1, got %d", c.Sizing.MinSamples)
	case c.Reservations.Hold <= 0 || c.Reservations.Hold > Duration(maxHold):
		return invalid("reservations.hold", "must be positive and at most %v, got %v", maxHold, time.Duration(c.Reservations.Hold))
	case c.Reservations.Always && !c.Reservations.Enabled:
		return invalid("reservations.always", "needs reservations.enabled")
	case c.Shield < 0 || c.Shield > Duration(maxShield):
		return invalid("shield", "must be from 0 to %v, got %v", maxShield, time.Duration(c.Shield))
	case c.Shield > 0 && !c.Reservations.Enabled:
		return invalid("shield", "needs reservations.enabled: a shield starts when the attack on a reserved defender is confirmed")
	case c.MaxPlayerStates < 1:
		return invalid("max_player_states", "must be at least 1, got %d", c.MaxPlayerStates)
	}
	if _, err := c.PlayerRemoveAfterCandidateOfferThreshold.level(); err != nil {
		return invalid("player_remove_after_candidate_offer_threshold", "%v", err)
	}
	if _, err := c.PlayerIgnoreUpdateInsertThreshold.level(); err != nil {
		return invalid("player_ignore_update_insert_threshold", "%v", err)
	}
	return nil
}
