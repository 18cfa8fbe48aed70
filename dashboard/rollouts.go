package dashboard

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/service/ticketsvc/canary"
)

// The roll-outs page: each queue's shadow report beside the live figures,
// its canary with the guards' state, and the canary's decisions (promote,
// roll back) as confirmed actions noted in the action log. Shadows and
// canaries are started from the API or the CLI (docs/rollouts.md); the
// page shows and decides.

// rolloutOut is one queue's shadow and canary as the page shows them;
// either may be missing.
type rolloutOut struct {
	Queue string `json:"queue"`
	// Owned tells whether this node runs the queue's pools, and so holds
	// the figures: on a cluster the others show the state only.
	Owned  bool                 `json:"owned"`
	Shadow *canary.ShadowReport `json:"shadow,omitempty"`
	Canary *canaryOut           `json:"canary,omitempty"`
}

// canaryOut is a canary's status with its guard's window in seconds.
type canaryOut struct {
	*canary.CanaryStatus
	WindowSeconds float64 `json:"window_seconds"`
}

// rollouts serves GET rollouts: every queue that has a shadow or a canary
// (running or decided), in name order.
func (s *server) rollouts(w http.ResponseWriter, r *http.Request) {
	out := []rolloutOut{}
	for _, q := range s.o.Tickets.Queues() {
		o := rolloutOut{Queue: q, Owned: s.o.Tickets.Owns(q)}
		rep, err := s.o.Tickets.Rollouts().ShadowReport(r.Context(), q)
		if err == nil {
			o.Shadow = rep
		} else if !notFound(err) {
			s.fail(w, r, err)
			return
		}
		st, err := s.o.Tickets.Rollouts().CanaryStatus(r.Context(), q)
		if err == nil {
			o.Canary = &canaryOut{CanaryStatus: st, WindowSeconds: st.Guard.Window.Seconds()}
		} else if !notFound(err) {
			s.fail(w, r, err)
			return
		}
		if o.Shadow != nil || o.Canary != nil {
			out = append(out, o)
		}
	}
	writeJSON(w, map[string]any{"rollouts": out})
}

func notFound(err error) bool {
	var e *cupid.Error
	return errors.As(err, &e) && e.Code == cupid.CodeNotFound
}

// canaryIn is the body of POST actions/canary.
type canaryIn struct {
	Queue  string `json:"queue"`
	Action string `json:"action"`
	Reason string `json:"reason"`
}

// canaryActions are the decisions the page may take, by the name it sends.
var canaryActions = []string{"promote", "rollback"}

// canaryAction promotes a running canary (its candidate becomes the
// queue's ruleset) or rolls it back (new tickets all go live).
func (s *server) canaryAction(w http.ResponseWriter, r *http.Request) {
	var in canaryIn
	if err := readJSON(r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	in.Queue, in.Reason = strings.TrimSpace(in.Queue), strings.TrimSpace(in.Reason)
	var op func(*http.Request, string, string) (*canary.CanaryStatus, error)
	switch in.Action {
	case "promote":
		op = func(r *http.Request, q, why string) (*canary.CanaryStatus, error) {
			return s.o.Tickets.Rollouts().PromoteCanary(r.Context(), q, why)
		}
	case "rollback":
		op = func(r *http.Request, q, why string) (*canary.CanaryStatus, error) {
			return s.o.Tickets.Rollouts().RollbackCanary(r.Context(), q, why)
		}
	case "":
		s.fail(w, r, cupid.Invalid("action", "required: one of %s", strings.Join(canaryActions, ", ")))
		return
	default:
		s.fail(w, r, cupid.Invalid("action", "%q is not a canary action; one of %s", in.Action, strings.Join(canaryActions, ", ")))
		return
	}
	switch {
	case in.Queue == "":
		s.fail(w, r, cupid.Invalid("queue", "required: the canary's queue"))
		return
	case len(in.Queue) > maxID:
		s.fail(w, r, cupid.Invalid("queue", "at most %d bytes", maxID))
		return
	case len(in.Reason) > maxReason:
		s.fail(w, r, cupid.Invalid("reason", "at most %d bytes, got %d", maxReason, len(in.Reason)))
		return
	}
	what := map[string]string{"promote": "promote", "rollback": "roll back"}[in.Action] + " the canary of queue " + in.Queue
	if in.Reason != "" {
		what += " (" + in.Reason + ")"
	}
	st, err := op(r, in.Queue, in.Reason)
	if err != nil {
		s.note(r, what, refusal(err), false)
		s.fail(w, r, err)
		return
	}
	outcome := strings.ReplaceAll(st.State, "_", " ")
	if in.Action == "promote" {
		if _, v, err := s.o.Tickets.Rulesets().Ruleset(in.Queue); err == nil {
			outcome += fmt.Sprintf(": the queue runs its candidate as version %d", v)
		}
	}
	s.note(r, what, outcome, true)
	writeJSON(w, map[string]any{"status": st, "outcome": outcome})
}
