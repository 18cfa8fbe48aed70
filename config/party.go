package config

// QueueParty is what a queue asks of the parties its leaders queue
// (docs/parties.md). The largest party a queue takes is its ruleset's
// player_max_number; nothing here repeats it.
type QueueParty struct {
	// AllReady refuses a leader's Queue until every member is ready.
	AllReady bool `yaml:"all_ready"`
}
