package dashboard

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/service/pairingsvc"
)

// The operator's actions: cancel tickets, release a stuck match, start,
// end, pause or resume a speed-dating event's rounds, rebalance an
// opponent finder. Each is a POST under actions/ that checks its input
// (naming the field at fault, changing nothing when it is bad), calls the
// service as the API would, and is noted in the action log (who did what,
// and what came of it) whether it succeeded or not.

// Bounds of an action's input.
const (
	maxCancelIDs = 100 // tickets one cancel takes
	maxReason    = 200 // bytes of a release's reason
)

// eventActions are what an operator may do to a speed-dating event, by
// the name the page sends.
var eventActions = []string{"start_round", "end_round", "pause", "resume"}

// cancelIn is the body of POST actions/cancel.
type cancelIn struct {
	IDs []string `json:"ids"`
}

// cancelOut is one ticket's result.
type cancelOut struct {
	ID      string `json:"id"`
	State   string `json:"state,omitempty"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
}

// checkIDs refuses an empty list, too many ids, blank, oversized or
// repeated ones, naming the first at fault.
func checkIDs(field string, ids []string, limit int) error {
	switch {
	case len(ids) == 0:
		return cupid.Invalid(field, "give at least one id")
	case len(ids) > limit:
		return cupid.Invalid(field, "at most %d ids, got %d", limit, len(ids))
	}
	seen := make(map[string]bool, len(ids))
	for i, id := range ids {
		f := fmt.Sprintf("%s[%d]", field, i)
		switch {
		case strings.TrimSpace(id) == "":
			return cupid.Invalid(f, "required: a ticket id")
		case len(id) > maxID:
			return cupid.Invalid(f, "at most %d bytes", maxID)
		case seen[id]:
			return cupid.Invalid(f, "%q is listed twice", id)
		}
		seen[id] = true
	}
	return nil
}

// cancel cancels waiting tickets, each with its own result: one already
// ended does not stop the others.
func (s *server) cancel(w http.ResponseWriter, r *http.Request) {
	var in cancelIn
	if err := readJSON(r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	if err := checkIDs("ids", in.IDs, maxCancelIDs); err != nil {
		s.fail(w, r, err)
		return
	}
	res := s.o.Tickets.CancelTickets(r.Context(), in.IDs)
	out := make([]cancelOut, len(res))
	done := 0
	var refused []string
	for i, c := range res {
		out[i].ID = in.IDs[i]
		if c.Err != nil {
			e, _ := wire(toError(c.Err))
			out[i].Code, out[i].Message = e.Code, e.Message
			refused = append(refused, in.IDs[i]+": "+e.Message)
			continue
		}
		out[i].State = string(c.Ticket.State)
		done++
	}
	outcome := fmt.Sprintf("%d cancelled", done)
	if len(refused) > 0 {
		outcome += fmt.Sprintf(", %d refused (%s)", len(refused), strings.Join(refused, "; "))
	}
	s.note(r, "cancel "+count(len(in.IDs), "ticket")+": "+strings.Join(in.IDs, ", "), outcome, len(refused) == 0)
	writeJSON(w, map[string]any{"results": out})
}

// releaseIn is the body of POST actions/release.
type releaseIn struct {
	MatchID string `json:"match_id"`
	Requeue bool   `json:"requeue"`
	Reason  string `json:"reason"`
}

// release releases a formed match no backend assigned: its tickets go back
// to their pool with their age (requeue) or are cancelled.
func (s *server) release(w http.ResponseWriter, r *http.Request) {
	var in releaseIn
	if err := readJSON(r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	in.MatchID, in.Reason = strings.TrimSpace(in.MatchID), strings.TrimSpace(in.Reason)
	switch {
	case in.MatchID == "":
		s.fail(w, r, cupid.Invalid("match_id", "required: the match to release"))
		return
	case len(in.MatchID) > maxID:
		s.fail(w, r, cupid.Invalid("match_id", "at most %d bytes", maxID))
		return
	case len(in.Reason) > maxReason:
		s.fail(w, r, cupid.Invalid("reason", "at most %d bytes, got %d", maxReason, len(in.Reason)))
		return
	}
	if in.Reason == "" {
		in.Reason = "released from the dashboard"
	}
	what := "release match " + in.MatchID
	if in.Requeue {
		what += ", its tickets back to their pool"
	} else {
		what += ", its tickets cancelled"
	}
	rel, err := s.o.Tickets.Handoff().ReleaseMatch(r.Context(), in.MatchID, in.Requeue, in.Reason)
	if err != nil {
		s.note(r, what, refusal(err), false)
		s.fail(w, r, err)
		return
	}
	s.note(r, what, fmt.Sprintf("released (%s)", in.Reason), true)
	writeJSON(w, map[string]any{"match": rel.Match})
}

// eventIn is the body of POST actions/event.
type eventIn struct {
	Event  string `json:"event"`
	Action string `json:"action"`
}

// eventAction starts or ends a round of a speed-dating event, or pauses or
// resumes its timers.
func (s *server) eventAction(w http.ResponseWriter, r *http.Request) {
	var in eventIn
	if err := readJSON(r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	if s.o.Pairing == nil {
		s.fail(w, r, cupid.NotFound("event", "this server runs no speed-dating events"))
		return
	}
	var op func(context.Context, string) (*pairingsvc.EventView, error)
	switch in.Action {
	case "start_round":
		op = s.o.Pairing.StartRound
	case "end_round":
		op = s.o.Pairing.EndRound
	case "pause":
		op = s.o.Pairing.Pause
	case "resume":
		op = s.o.Pairing.Resume
	case "":
		s.fail(w, r, cupid.Invalid("action", "required: one of %s", strings.Join(eventActions, ", ")))
		return
	default:
		s.fail(w, r, cupid.Invalid("action", "%q is not an event action; one of %s", in.Action, strings.Join(eventActions, ", ")))
		return
	}
	switch {
	case strings.TrimSpace(in.Event) == "":
		s.fail(w, r, cupid.Invalid("event", "required: the event's id"))
		return
	case len(in.Event) > maxID:
		s.fail(w, r, cupid.Invalid("event", "at most %d bytes", maxID))
		return
	}
	what := strings.ReplaceAll(in.Action, "_", " ") + " of event " + in.Event
	v, err := op(r.Context(), in.Event)
	if err != nil {
		s.note(r, what, refusal(err), false)
		s.fail(w, r, err)
		return
	}
	s.note(r, what, fmt.Sprintf("round %d, %s", v.Round, eventStatus(v)), true)
	writeJSON(w, map[string]any{"event": v.ID, "phase": v.Phase, "round": v.Round, "paused": v.Paused, "status": eventStatus(v)})
}

// rebalanceIn is the body of POST actions/rebalance.
type rebalanceIn struct {
	Finder string `json:"finder"`
}

// rebalance resizes an opponent finder's buckets to the players sampled
// so far, as its background goroutine does every sizing interval.
func (s *server) rebalance(w http.ResponseWriter, r *http.Request) {
	var in rebalanceIn
	if err := readJSON(r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	switch {
	case s.o.Opponents == nil:
		s.fail(w, r, cupid.NotFound("finder", "this server runs no opponent finders"))
		return
	case strings.TrimSpace(in.Finder) == "":
		s.fail(w, r, cupid.Invalid("finder", "required: the finder's name"))
		return
	case len(in.Finder) > maxID:
		s.fail(w, r, cupid.Invalid("finder", "at most %d bytes", maxID))
		return
	}
	what := "rebalance finder " + in.Finder
	res, err := s.o.Opponents.Rebalance(r.Context(), in.Finder)
	if err != nil {
		s.note(r, what, refusal(err), false)
		s.fail(w, r, err)
		return
	}
	outcome := fmt.Sprintf("resized to %s from %.0f samples", count(res.Buckets, "bucket"), res.Samples)
	if !res.Resized {
		outcome = fmt.Sprintf("not resized: too few samples since the last sizing (%.0f)", res.Samples)
	}
	s.note(r, what, outcome, true)
	writeJSON(w, map[string]any{"resized": res.Resized, "samples": res.Samples, "buckets": res.Buckets})
}

// refusal says why an action was refused, as the caller is told.
func refusal(err error) string {
	e, _ := wire(toError(err))
	return "refused: " + e.Message
}

// note records an action in the log: who (Options.Who), what, and what
// came of it.
func (s *server) note(r *http.Request, what, outcome string, ok bool) {
	who := "anyone (the server has no auth)"
	if s.o.Who != nil {
		who = s.o.Who(r)
	}
	s.o.Logger.Info("dashboard action", "who", who, "what", what, "outcome", outcome)
	s.actions.add(r.Context(), Action{At: s.o.Now().UTC(), Who: who, What: what, Outcome: outcome, OK: ok})
}

// actionList serves GET actions: the log, newest first.
func (s *server) actionList(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, map[string]any{"actions": s.actions.list(r.Context())})
}
