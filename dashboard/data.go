package dashboard

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/engine"
	"github.com/cupid-match/cupid/importer"
	"github.com/cupid-match/cupid/ruleset"
	"github.com/cupid-match/cupid/service/ticketsvc"
	"github.com/cupid-match/cupid/sim"
)

// ticketOut is a ticket as the tickets page shows it.
type ticketOut struct {
	ID         string         `json:"id"`
	Queue      string         `json:"queue"`
	Key        string         `json:"key"`
	State      string         `json:"state"`
	Players    []playerOut    `json:"players"`
	CreatedAt  time.Time      `json:"created_at"`
	ExpiresAt  time.Time      `json:"expires_at"`
	UpdatedAt  time.Time      `json:"updated_at"`
	Wait       float64        `json:"wait_seconds"`
	Reason     string         `json:"reason,omitempty"`
	MatchID    string         `json:"match_id,omitempty"`
	Match      *cupid.Match   `json:"match,omitempty"`
	Why        []string       `json:"why,omitempty"`
	Summary    string         `json:"summary,omitempty"`
	Blocks     []engine.Block `json:"blocks,omitempty"`
	Considered int            `json:"considered,omitempty"`
	Compatible int            `json:"compatible,omitempty"`
}

// playerOut is a player as the API shows one: attributes by name, each a
// plain JSON number, string, list of strings or boolean, not the server's
// own encoding of a value.
type playerOut struct {
	ID         string         `json:"id"`
	Attributes map[string]any `json:"attributes,omitempty"`
}

func playersOut(in []cupid.Player) []playerOut {
	out := make([]playerOut, len(in))
	for i, p := range in {
		out[i].ID = p.ID
		for _, a := range p.Attributes {
			if out[i].Attributes == nil {
				out[i].Attributes = make(map[string]any, len(p.Attributes))
			}
			out[i].Attributes[a.Name] = a.Value.Plain()
		}
	}
	return out
}

func ticketView(v *ticketsvc.TicketView, now time.Time) ticketOut {
	t := v.Ticket
	out := ticketOut{
		ID: t.ID, Queue: t.Key.Queue, Key: t.Key.String(), State: string(t.State), Players: playersOut(t.Players),
		CreatedAt: t.CreatedAt, ExpiresAt: t.ExpiresAt, UpdatedAt: t.UpdatedAt, Reason: t.Reason,
		MatchID: t.MatchID, Match: v.Match,
	}
	end := now
	if t.State != cupid.StateWaiting {
		end = t.UpdatedAt
	}
	out.Wait = math.Round(max(end.Sub(t.CreatedAt), 0).Seconds()*10) / 10
	if v.Why != nil {
		out.Summary = v.Why.Summary
		out.Why = whyWords(v.Why, now)
		out.Blocks = v.Why.Blocks
		out.Considered, out.Compatible = v.Why.Considered, v.Why.Compatible
	} else if t.State == cupid.StateWaiting {
		out.Why = []string{"Its pool is busy and did not answer in time; the next update asks again."}
	}
	return out
}

// whyWords says in sentences why a ticket still waits: what it needs, what
// keeps the others out, and when the rules relax.
func whyWords(e *engine.Explanation, now time.Time) []string {
	var out []string
	if e.Summary != "" {
		out = append(out, e.Summary)
	}
	if e.Self != "" {
		out = append(out, "This ticket cannot start a match yet: "+e.Self+".")
	}
	out = append(out, fmt.Sprintf("Of %s looked at, %s could play with it: %d of the %d players a match needs are here (at least %d with a smaller match).",
		count(e.Considered, "waiting ticket"), count(e.Compatible, "ticket"), e.PlayersAvailable, e.PlayersNeeded, e.PlayersMinimum))
	for _, b := range e.Blocks {
		s := fmt.Sprintf("The rule %s turned away %s", b.Rule, count(b.Removed, "ticket"))
		if b.Nearest != "" {
			s += "; the nearest: " + b.Nearest
		}
		out = append(out, s+".")
	}
	if !e.NextRelaxation.IsZero() {
		s := "Its rules relax in " + seconds(e.NextRelaxation.Sub(now))
		if len(e.Relaxes) > 0 {
			s += " (" + strings.Join(e.Relaxes, "; ") + ")"
		}
		switch {
		case e.NextAdds > 0:
			s += fmt.Sprintf(", letting %s more in", count(e.NextAdds, "ticket"))
		case e.NextForms > 0:
			s += fmt.Sprintf(", which lets a match of %d start", e.NextForms)
		default:
			s += ", which lets nobody more in"
		}
		out = append(out, s+".")
	} else {
		out = append(out, "Its rules do not relax any further.")
	}
	if !e.FirstAdmit.IsZero() && e.NextAdds == 0 && e.NextForms == 0 {
		out = append(out, fmt.Sprintf("The first relaxation that helps comes in %s.", seconds(e.FirstAdmit.Sub(now))))
	}
	return out
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func seconds(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	return d.Round(100 * time.Millisecond).String()
}

// maxID bounds the ids a search takes, as the ticket service does.
const maxID = 256

// tickets finds tickets: ?id= one ticket, ?player= a player's tickets.
func (s *server) tickets(w http.ResponseWriter, r *http.Request) {
	id, player := strings.TrimSpace(r.URL.Query().Get("id")), strings.TrimSpace(r.URL.Query().Get("player"))
	now := s.o.Now()
	var out []ticketOut
	switch {
	case id == "" && player == "":
		s.fail(w, r, cupid.Invalid("id", "give a ticket id (id) or a player id (player)"))
		return
	case len(id) > maxID:
		s.fail(w, r, cupid.Invalid("id", "at most %d bytes", maxID))
		return
	case id != "":
		v, err := s.o.Tickets.GetTicket(r.Context(), id)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		out = append(out, ticketView(v, now))
	default:
		ts, err := s.o.Tickets.Statistics().PlayerTickets(r.Context(), player)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		for _, t := range ts {
			v, err := s.o.Tickets.GetTicket(r.Context(), t.ID)
			if err != nil {
				continue // gone meanwhile
			}
			out = append(out, ticketView(v, now))
		}
	}
	if out == nil {
		out = []ticketOut{}
	}
	writeJSON(w, map[string]any{"tickets": out})
}

// pretty indents a ruleset written on one line (as configuration files
// give them) for the editor; one already laid out in lines, or not JSON,
// is returned as it is.
func pretty(src []byte) string {
	var b bytes.Buffer
	if bytes.ContainsRune(bytes.TrimSpace(src), '\n') || json.Indent(&b, src, "", "  ") != nil {
		return string(src)
	}
	return b.String()
}

func (s *server) ruleset(w http.ResponseWriter, r *http.Request) {
	q := r.PathValue("queue")
	hist, err := s.o.Tickets.Rulesets().History(r.Context(), q)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	src, version, err := s.o.Tickets.Rulesets().Ruleset(q)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	for i := range hist {
		hist[i].Ruleset = pretty([]byte(hist[i].Ruleset))
	}
	writeJSON(w, map[string]any{"queue": q, "version": version, "ruleset": pretty(src), "history": hist})
}

// readJSON decodes a request body strictly into v.
func readJSON(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if err == io.EOF {
			return cupid.Invalid("body", "a JSON object is required")
		}
		if errors.As(err, &tooBig) {
			return err
		}
		return cupid.Invalid("body", "not the JSON this endpoint takes: %v", err)
	}
	return nil
}

type rulesetIn struct {
	Ruleset         string `json:"ruleset"`
	ExpectedVersion int    `json:"expected_version"`
}

// problemOut is a ruleset problem at its line and column (1-based; 0 when
// the problem has no place).
type problemOut struct {
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
}

func problems(ps ruleset.Problems) []problemOut {
	out := []problemOut{}
	for _, p := range ps {
		out = append(out, problemOut{Line: p.Line, Column: p.Column, Path: p.Path, Message: p.Message})
	}
	return out
}

// check validates a ruleset as the editor types: every problem, at its
// line and column.
func (s *server) check(w http.ResponseWriter, r *http.Request) {
	var in rulesetIn
	if err := readJSON(r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	ps := s.o.Tickets.Rulesets().Validate([]byte(in.Ruleset))
	writeJSON(w, map[string]any{"valid": len(ps) == 0, "problems": problems(ps)})
}

// importIn is the body of POST import.
type importIn struct {
	From   string `json:"from"`
	Source string `json:"source"`
}

// importRuleset converts a FlexMatch rule set, a Nakama request or an Open
// Match profile for the editor, as RulesetService.ImportRuleset does; it
// changes nothing on the server.
func (s *server) importRuleset(w http.ResponseWriter, r *http.Request) {
	var in importIn
	if err := readJSON(r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	if in.Source == "" {
		s.fail(w, r, cupid.Invalid("source", "required: the file to import"))
		return
	}
	if len(in.Source) > ruleset.MaxSourceBytes {
		s.fail(w, r, cupid.Invalid("source", "%d bytes, more than the limit of %d", len(in.Source), ruleset.MaxSourceBytes))
		return
	}
	res, err := importer.Import(in.From, []byte(in.Source))
	if err != nil {
		s.fail(w, r, cupid.Invalid("from", "%v", err))
		return
	}
	entries := res.Report.Entries
	if entries == nil {
		entries = []importer.Entry{}
	}
	writeJSON(w, map[string]any{
		"outcome": res.Report.Outcome().String(), "ruleset": string(res.Ruleset), "queues": string(res.Config),
		"refused": res.Report.Refused, "entries": entries, "report": res.Report.Text("source"),
	})
}

// putRuleset puts an edited ruleset live; a ruleset with problems is
// refused with them, and nothing changes.
func (s *server) putRuleset(w http.ResponseWriter, r *http.Request) {
	var in rulesetIn
	if err := readJSON(r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	q := r.PathValue("queue")
	if _, _, err := s.o.Tickets.Rulesets().Ruleset(q); err != nil {
		s.fail(w, r, err)
		return
	}
	if ps := s.o.Tickets.Rulesets().Validate([]byte(in.Ruleset)); len(ps) > 0 {
		writeProblems(w, ps, "the ruleset has %s; nothing was changed")
		return
	}
	v, err := s.o.Tickets.Rulesets().Put(r.Context(), q, []byte(in.Ruleset), in.ExpectedVersion, "editor")
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, map[string]any{"queue": q, "version": v})
}

// Bounds of a scenario tried from the editor, so one request stays cheap.
const (
	maxTryTickets = 500
	maxTrySeconds = 3600
	tryTimeout    = 10 * time.Second
	maxTries      = 2 // at once, over the whole server
)

// try runs a ruleset over sample tickets in virtual time, as "cupid
// ruleset try" does, and returns the report.
func (s *server) try(w http.ResponseWriter, r *http.Request) {
	// The ruleset comes as the editor's text, so problems are at the
	// editor's lines.
	var in struct {
		Ruleset string               `json:"ruleset"`
		Tickets []sim.ScenarioTicket `json:"tickets"`
		Until   float64              `json:"until"`
		Seed    int64                `json:"seed"`
	}
	if err := readJSON(r, &in); err != nil {
		s.fail(w, r, err)
		return
	}
	sc := sim.Scenario{Name: "dashboard", Ruleset: json.RawMessage(in.Ruleset), Tickets: in.Tickets, Until: in.Until, Seed: in.Seed}
	switch {
	case len(bytes.TrimSpace(sc.Ruleset)) == 0:
		s.fail(w, r, cupid.Invalid("ruleset", "required"))
		return
	case len(sc.Tickets) == 0:
		s.fail(w, r, cupid.Invalid("tickets", "give at least one sample ticket"))
		return
	case len(sc.Tickets) > maxTryTickets:
		s.fail(w, r, cupid.Invalid("tickets", "at most %d sample tickets, got %d", maxTryTickets, len(sc.Tickets)))
		return
	case sc.Until < 0 || sc.Until > maxTrySeconds:
		s.fail(w, r, cupid.Invalid("until", "between 0 and %d seconds, got %v", maxTrySeconds, sc.Until))
		return
	}
	for i, t := range sc.Tickets {
		if t.At < 0 || t.At > maxTrySeconds {
			s.fail(w, r, cupid.Invalid(fmt.Sprintf("tickets[%d].at", i), "between 0 and %d seconds, got %v", maxTrySeconds, t.At))
			return
		}
		// The scenario builds a party's players before anything judges
		// them, so a size no ticket may have is refused here.
		if t.Party > cupid.MaxPlayersPerTicket {
			s.fail(w, r, cupid.Invalid(fmt.Sprintf("tickets[%d].party", i), "at most %d players, got %d", cupid.MaxPlayersPerTicket, t.Party))
			return
		}
	}
	if ps := s.o.Tickets.Rulesets().Validate(sc.Ruleset); len(ps) > 0 {
		writeProblems(w, ps, "the ruleset has %s")
		return
	}
	select {
	case s.tries <- struct{}{}:
	default:
		s.fail(w, r, cupid.Errorf(cupid.CodeExhausted, "", "%d tries are running, the limit; try again in a moment", maxTries))
		return
	}
	type result struct {
		rep sim.ScenarioReport
		err error
	}
	done := make(chan result, 1)
	go func() {
		// The token is given back when the run ends, even one whose
		// caller stopped waiting.
		defer func() { <-s.tries }()
		rep, err := sim.RunScenario(sc)
		done <- result{rep, err}
	}()
	ctx, cancel := context.WithTimeout(r.Context(), tryTimeout)
	defer cancel()
	select {
	case res := <-done:
		if res.err != nil {
			s.fail(w, r, cupid.Invalid("tickets", "%v", res.err))
			return
		}
		writeJSON(w, map[string]any{"report": res.rep, "text": res.rep.Text()})
	case <-ctx.Done():
		s.fail(w, r, cupid.Errorf(cupid.CodeExhausted, "", "the scenario ran past %v; try fewer tickets or a shorter until", tryTimeout))
	}
}
