// Package storeerr holds the one rule by which the ticket service and the
// packages split from it (handoff, stats, replace, canary) turn a store's
// failure into what their callers see. It lives apart so that each of them
// imports it without importing one another.
package storeerr

import (
	"context"
	"errors"
	"log/slog"

	cupid "github.com/cupid-match/cupid"
)

// Domain makes a store failure a domain error. A *cupid.Error passes
// through (the store chose its code: not_found, conflict …), and so do a
// cancelled or timed-out context, which are the caller's own doing. Anything
// else means the store could not do the work now (a full disk, a lost
// connection), which the caller may retry: it becomes unavailable, never a
// bare internal error. The store's own words (paths, SQL) go to log only,
// so they never reach a client. nil stays nil.
func Domain(log *slog.Logger, err error) error {
	var e *cupid.Error
	if err == nil || errors.As(err, &e) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	log.Error("the store failed", "err", err)
	return cupid.Errorf(cupid.CodeUnavailable, "", "the store could not do this now; try again")
}
