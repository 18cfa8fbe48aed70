package config

import cupid "github.com/cupid-match/cupid"

// Acceptance is a queue's ready check (FlexMatch's acceptance): every
// player of a match must accept it within Timeout, or it is released.
type Acceptance struct {
	// Timeout is how long players have to accept; required.
	Timeout Duration `yaml:"timeout"`
	// OnDecline is what becomes of the ticket of a player who declined or
	// did not answer in time: cancel (the default) or requeue_last (back
	// to waiting as if just created: a penalty). The other players' tickets
	// always go back to waiting with their age.
	OnDecline string `yaml:"on_decline"`
}

// checkAcceptance checks a queue's ready check.
func (q *QueueConfig) checkAcceptance(doc *document, field string) {
	a := q.Acceptance
	if a == nil {
		return
	}
	field += ".acceptance"
	if a.Timeout <= 0 {
		doc.report(cupid.Invalid(field+".timeout", "must be positive: how long players have to accept a match (leave acceptance out for no ready check)"))
	}
	switch a.OnDecline {
	case "", "cancel", "requeue_last":
	default:
		doc.report(cupid.Invalid(field+".on_decline", "must be cancel or requeue_last, got %q", a.OnDecline))
	}
}
