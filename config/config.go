// Package config reads Cupid's configuration file: the queues and their
// rulesets, the opponent finders and the limits of speed-dating events. It
// checks everything at load, so a server never starts half-configured, and
// every problem it finds names the line and the setting.
//
// Only the command (cmd/cupid) reads configuration; it hands the services
// the plain values they take.
package config

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"gopkg.in/yaml.v3"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
)

// Config is the server's configuration file.
type Config struct {
	// Queues lists the real-time queues and their rulesets.
	Queues []QueueConfig `yaml:"queues"`
	// Opponents lists the async opponent finders (see opponent.go).
	Opponents []OpponentFinder `yaml:"opponents"`
	// Pairing sets the limits of speed-dating events (see pairing.go).
	Pairing Pairing `yaml:"pairing"`
	// Server sets the HTTP server's limits, browser origins and TLS (see
	// server.go).
	Server Server `yaml:"server"`
	// Auth is who may do what (see auth.go); when absent the server runs
	// open, which it allows only on loopback.
	Auth *Auth `yaml:"auth"`
	// Ratings are the named ratings kept from match results (see
	// ratings.go).
	Ratings []RatingConfig `yaml:"ratings"`
	// Retention is how long ended data is kept (see retention.go).
	Retention Retention `yaml:"retention"`
	// Encounters is the history of who met whom (see encounters.go).
	Encounters *Encounters `yaml:"encounters"`
}

// QueueConfig is one queue: its name, how long tickets may wait, and its
// ruleset, inline (YAML or JSON object) or in a JSON file.
type QueueConfig struct {
	Name string `yaml:"name"`
	// TicketTTL is how long a ticket waits before it expires; 10 minutes
	// when zero.
	TicketTTL Duration `yaml:"ticket_ttl"`
	// Ruleset is the ruleset document written inline.
	Ruleset any `yaml:"ruleset"`
	// RulesetFile is a path to a ruleset JSON file, relative to the config
	// file.
	RulesetFile string `yaml:"ruleset_file"`
	// MaxKeys bounds the queue keys (version and custom key pairs) with
	// live tickets at once; 1000 when zero. A create past it is refused
	// with resource_exhausted.
	MaxKeys int `yaml:"max_keys"`
	// AssignTimeout releases a match that no backend assigned a game
	// server within it; zero (the default) never releases.
	AssignTimeout Duration `yaml:"assign_timeout"`
	// OnAssignTimeout is what becomes of a released match's tickets:
	// requeue (the default; back to waiting with their original age) or
	// cancel.
	OnAssignTimeout string `yaml:"on_assign_timeout"`
	// Rating makes the queue rating-backed: its skill attribute comes
	// from a stored rating, which its match results update (ratings.go).
	Rating *QueueRatingConfig `yaml:"rating"`
	// LeaverWindow is how long after a session's assignment a player who
	// leaves it is replaced by backfill; zero (the default) never
	// replaces leavers: their seats close.
	LeaverWindow Duration `yaml:"leaver_window"`
	// MaxSession ends a match's session by itself this long after the
	// match formed, if its backend has not ended it: a live match holds
	// its players (a player is in one live match at most), so a backend
	// that never ends its sessions cannot keep players out for ever.
	// DefaultMaxSession when absent.
	MaxSession Duration `yaml:"max_session"`
	// Acceptance asks every player of a match to accept it in time before
	// it is formed (see accept.go); absent: matches form at once.
	Acceptance *Acceptance `yaml:"acceptance"`
	// Party is what the queue asks of parties (party.go); absent: nothing
	// beyond its ruleset.
	Party *QueueParty `yaml:"party"`

	// rulesetJSON is the ruleset as JSON and rules the ruleset compiled,
	// both filled by Load: the server runs what was checked, and compiles
	// it once.
	rulesetJSON []byte
	rules       *ruleset.Compiled
}

// Duration reads "90s", "10m" or a number of seconds from YAML.
type Duration time.Duration

// UnmarshalYAML accepts a Go duration string or a number of seconds.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	bad := fmt.Errorf("must be a duration such as 90s or 10m, or a number of seconds, got %s", describe(n))
	if n.Kind != yaml.ScalarNode {
		return bad
	}
	if v, err := time.ParseDuration(n.Value); err == nil {
		*d = Duration(v)
		return nil
	}
	var secs float64
	if err := n.Decode(&secs); err != nil {
		return bad
	}
	ns := secs * float64(time.Second)
	if math.IsNaN(ns) || ns >= math.MaxInt64 || ns <= math.MinInt64 {
		return fmt.Errorf("must be a duration of at most %v, got %s", time.Duration(math.MaxInt64), describe(n))
	}
	*d = Duration(time.Duration(ns))
	return nil
}

// DefaultTicketTTL is how long a ticket waits when its queue does not say.
const DefaultTicketTTL = 10 * time.Minute

//go:embed demo.yaml
var demoYAML []byte

// DemoConfig is the built-in configuration used when no file is given: a 1v1
// skill queue and a 5v5 queue with parties.
func DemoConfig() (*Config, error) {
	cfg, err := ParseConfig(demoYAML, ".")
	return cfg, inFile(err, "demo.yaml (built in)")
}

// LoadConfig reads a YAML configuration file. Its errors name the file, the
// line and the setting, as "cupid.yaml:12:5: opponents[1].player_cache_size:
// must be greater than 0, got 0".
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	cfg, err := ParseConfig(data, filepath.Dir(path))
	return cfg, inFile(err, path)
}

// ParseConfig reads a configuration from YAML; ruleset files are resolved
// against dir. An unknown setting is an error, and so is every bad value.
// The error is Errors: every problem found, each an *Error naming the line
// and the setting, in the order of the file.
func ParseConfig(data []byte, dir string) (*Config, error) {
	return parse(data, dir, os.ReadFile)
}

// parse is ParseConfig with the file reader as a seam, so the fuzz test
// never touches the file system. It reports every problem it finds: the
// structural check walks the whole file, and every section is checked
// even when another had problems. Only what an earlier problem leaves
// unknown is not checked (a value of the wrong type is not range-checked).
func parse(data []byte, dir string, readFile func(string) ([]byte, error)) (*Config, error) {
	doc, err := readDocument(data)
	if err != nil {
		if e, ok := err.(*Error); ok {
			return nil, Errors{e}
		}
		return nil, err
	}
	var cfg Config
	if !decode(doc, data, &cfg) {
		return nil, doc.errors()
	}
	if len(cfg.Queues) == 0 && len(cfg.Opponents) == 0 && doc.known("queues") && doc.known("opponents") {
		doc.report(cupid.Invalid("queues", "at least one queue (or one opponent finder) is required"))
	}
	seen := map[string]bool{}
	for i := range cfg.Queues {
		cfg.Queues[i].load(doc, fmt.Sprintf("queues[%d]", i), dir, seen, readFile)
	}
	cfg.checkOpponents(doc)
	cfg.checkRatings(doc)
	cfg.checkEncounters(doc)
	cfg.Pairing.check(doc)
	cfg.Server.check(doc, dir)
	cfg.Retention.check(doc, dir, cfg.encounterHorizon())
	if cfg.Auth != nil {
		cfg.Auth.load(doc, dir, readFile)
	}
	if err := doc.errors(); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// load checks a queue and reads its ruleset, reporting its problems to doc.
func (q *QueueConfig) load(doc *document, field, dir string, seen map[string]bool, readFile func(string) ([]byte, error)) {
	switch {
	case q.Name == "":
		doc.report(cupid.Invalid(field+".name", "a queue needs a name"))
	case seen[q.Name]:
		doc.report(cupid.Invalid(field+".name", "queue %q is defined twice", q.Name))
	}
	seen[q.Name] = true
	if q.TicketTTL < 0 {
		doc.report(cupid.Invalid(field+".ticket_ttl", "must not be negative"))
	}
	if q.TicketTTL == 0 {
		q.TicketTTL = Duration(DefaultTicketTTL)
	}
	if q.MaxKeys < 0 {
		doc.report(cupid.Invalid(field+".max_keys", "must not be negative (0 means the default, 1000)"))
	}
	q.checkHandoff(doc, field)
	q.checkAcceptance(doc, field)
	if !doc.known(field+".ruleset") || !doc.known(field+".ruleset_file") {
		return // which ruleset the queue has is not known
	}
	switch {
	case q.Ruleset != nil && q.RulesetFile != "":
		doc.report(cupid.Invalid(field, "give ruleset or ruleset_file, not both"))
	case q.RulesetFile != "":
		p := q.RulesetFile
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		b, err := readFile(p)
		if err != nil {
			doc.report(cupid.Invalid(field+".ruleset_file", "%v", err))
			return
		}
		q.rulesetJSON = b
		if q.rules, err = ruleset.Load(b); err != nil {
			doc.reportFile(field+".ruleset_file", rulesetFileErrors(p, field, q.Name, err))
		}
	case q.Ruleset != nil:
		b, err := json.Marshal(q.Ruleset)
		if err != nil {
			doc.report(cupid.Invalid(field+".ruleset", "cannot be turned into JSON: %v", err))
			return
		}
		q.rulesetJSON = b
		if q.rules, err = ruleset.Load(b); err != nil {
			doc.report(doc.rulesetErrors(field+".ruleset", err))
		}
	default:
		doc.report(cupid.Invalid(field+".ruleset", "a queue needs a ruleset"))
	}
}

// RulesetJSON returns the queue's ruleset document as JSON.
func (q *QueueConfig) RulesetJSON() []byte { return q.rulesetJSON }

// Rules returns the queue's ruleset as Load compiled it.
func (q *QueueConfig) Rules() *ruleset.Compiled { return q.rules }
