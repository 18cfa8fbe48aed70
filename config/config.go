// Package config reads Cupid's configuration file: the queues and their
// rulesets, the opponent finders and the limits of speed-dating events. It
// checks everything at load, so a server never starts half-configured.
package config

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"gopkg.in/yaml.v3"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/ruleset"
)

// Config is the server's configuration file: the queues and their rulesets.
type Config struct {
	Queues []QueueConfig `yaml:"queues"`
	// Opponents lists the async opponent finders (see opponent.go).
	Opponents []OpponentFinder `yaml:"opponents"`
	// Pairing sets the limits of speed-dating events (see pairing.go).
	Pairing Pairing `yaml:"pairing"`
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

	// rulesetJSON is the ruleset as JSON, filled by Load.
	rulesetJSON []byte
}

// Duration reads "90s", "10m" or a number of seconds from YAML.
type Duration time.Duration

// UnmarshalYAML accepts a Go duration string or a number of seconds.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	if v, err := time.ParseDuration(s); err == nil {
		*d = Duration(v)
		return nil
	}
	var secs float64
	if err := n.Decode(&secs); err != nil {
		return fmt.Errorf("line %d: %q is not a duration such as 90s or 10m", n.Line, s)
	}
	*d = Duration(time.Duration(secs * float64(time.Second)))
	return nil
}

// DefaultTicketTTL is how long a ticket waits when its queue does not say.
const DefaultTicketTTL = 10 * time.Minute

//go:embed demo.yaml
var demoYAML []byte

// DemoConfig is the built-in configuration used when no file is given: a 1v1
// skill queue and a 5v5 queue with parties.
func DemoConfig() (*Config, error) { return ParseConfig(demoYAML, ".") }

// LoadConfig reads a YAML configuration file.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	cfg, err := ParseConfig(data, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, nil
}

// ParseConfig reads a configuration from YAML; ruleset files are resolved
// against dir.
func ParseConfig(data []byte, dir string) (*Config, error) {
	var cfg Config
	dec := yaml.NewDecoder(bytesReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		return nil, err
	}
	if len(cfg.Queues) == 0 && len(cfg.Opponents) == 0 {
		return nil, cupid.Invalid("queues", "at least one queue (or one opponent finder) is required")
	}
	if err := cfg.checkOpponents(); err != nil {
		return nil, err
	}
	if err := cfg.Pairing.check(); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i := range cfg.Queues {
		q := &cfg.Queues[i]
		field := fmt.Sprintf("queues[%d]", i)
		if q.Name == "" {
			return nil, cupid.Invalid(field+".name", "a queue needs a name")
		}
		if seen[q.Name] {
			return nil, cupid.Invalid(field+".name", "queue %q is defined twice", q.Name)
		}
		seen[q.Name] = true
		if q.TicketTTL < 0 {
			return nil, cupid.Invalid(field+".ticket_ttl", "must not be negative")
		}
		if q.TicketTTL == 0 {
			q.TicketTTL = Duration(DefaultTicketTTL)
		}
		switch {
		case q.Ruleset != nil && q.RulesetFile != "":
			return nil, cupid.Invalid(field, "give ruleset or ruleset_file, not both")
		case q.RulesetFile != "":
			p := q.RulesetFile
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return nil, cupid.Invalid(field+".ruleset_file", "%v", err)
			}
			q.rulesetJSON = b
		case q.Ruleset != nil:
			b, err := json.Marshal(q.Ruleset)
			if err != nil {
				return nil, cupid.Invalid(field+".ruleset", "cannot be turned into JSON: %v", err)
			}
			q.rulesetJSON = b
		default:
			return nil, cupid.Invalid(field+".ruleset", "a queue needs a ruleset")
		}
		if _, err := ruleset.Load(q.rulesetJSON); err != nil {
			return nil, fmt.Errorf("%s.ruleset: %w", field, err)
		}
	}
	return &cfg, nil
}

// RulesetJSON returns the queue's ruleset document as JSON.
func (q *QueueConfig) RulesetJSON() []byte { return q.rulesetJSON }

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
