package config

import (
	"time"

	cupid "github.com/cupid-match/cupid"
)

// DefaultMaxSession is a queue's max_session when it gives none.
const DefaultMaxSession = Duration(2 * time.Hour)

// Session is the queue's max_session, or DefaultMaxSession.
func (q *QueueConfig) Session() time.Duration {
	if q.MaxSession == 0 {
		return time.Duration(DefaultMaxSession)
	}
	return time.Duration(q.MaxSession)
}

// checkHandoff checks the settings that release unassigned matches.
func (q *QueueConfig) checkHandoff(doc *document, field string) {
	if q.MaxSession < 0 {
		doc.report(cupid.Invalid(field+".max_session", "must not be negative (absent: %s)", time.Duration(DefaultMaxSession)))
	}
	if q.LeaverWindow < 0 {
		doc.report(cupid.Invalid(field+".leaver_window", "must not be negative (0, the default, never replaces a leaver)"))
	}
	if q.AssignTimeout < 0 {
		doc.report(cupid.Invalid(field+".assign_timeout", "must not be negative (0, the default, never releases a match)"))
	}
	switch q.OnAssignTimeout {
	case "", "requeue", "cancel":
	default:
		doc.report(cupid.Invalid(field+".on_assign_timeout", "must be requeue or cancel, got %q", q.OnAssignTimeout))
		return
	}
	if q.OnAssignTimeout != "" && q.AssignTimeout == 0 {
		doc.report(cupid.Invalid(field+".on_assign_timeout", "needs an assign_timeout: without one no match is released"))
	}
}
