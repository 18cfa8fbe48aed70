package config

import cupid "github.com/cupid-match/cupid"

// checkHandoff checks the settings that release unassigned matches.
func (q *QueueConfig) checkHandoff(doc *document, field string) {
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
