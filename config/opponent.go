package config

// OpponentFinder configures one async opponent finder. The opponent
// service's owner fills this in.
type OpponentFinder struct {
	Name string `yaml:"name"`
}

func (c *Config) checkOpponents() error { return nil }
