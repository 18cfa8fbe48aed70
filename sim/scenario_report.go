package sim

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/engine"
)

// ScenarioReport is what happened in a scenario.
type ScenarioReport struct {
	Name string `json:"name,omitempty"`
	// End is the virtual second the run stopped at.
	End float64 `json:"end"`
	// Matches are in the order they formed.
	Matches []ScenarioMatch `json:"matches"`
	// Waiting explains every ticket still waiting at End.
	Waiting []ScenarioWait `json:"waiting"`
	// Refused lists tickets the engine would not take (Check failed).
	Refused []ScenarioRefusal `json:"refused,omitempty"`
	// Cancelled lists tickets cancelled while waiting.
	Cancelled []string `json:"cancelled,omitempty"`
	// Stats are the pool's counters at the end.
	Stats engine.Stats `json:"stats"`
}

// ScenarioMatch is one match formed.
type ScenarioMatch struct {
	// At is the second it formed.
	At float64 `json:"at"`
	// Version is the client_version of the pool it formed in.
	Version string `json:"version,omitempty"`
	// Teams lists each team's ticket IDs.
	Teams  [][]string `json:"teams"`
	Region string     `json:"region,omitempty"`
	// Roles maps players to their roles, with role quotas.
	Roles map[string]string `json:"roles,omitempty"`
	// Quality is the match score and Parts its criteria.
	Quality float64            `json:"quality"`
	Parts   cupid.QualityParts `json:"parts"`
	// Waits is each ticket's wait when matched, in seconds.
	Waits map[string]float64 `json:"waits"`
	// Anchor is the ticket the match was built around and Level its flex
	// level.
	Anchor string `json:"anchor"`
	Level  int    `json:"level"`
}

// ScenarioWait says why a ticket is still waiting.
type ScenarioWait struct {
	ID string `json:"id"`
	// Version is the ticket's client_version.
	Version          string         `json:"version,omitempty"`
	Waited           float64        `json:"waited"`
	Summary          string         `json:"summary"`
	Compatible       int            `json:"compatible"`
	PlayersAvailable int            `json:"players_available"`
	PlayersNeeded    int            `json:"players_needed"`
	Blocks           []engine.Block `json:"blocks,omitempty"`
	// NextRelaxation is the second the ticket's rules next relax (0:
	// never), NextAdds the candidates that lets in and NextForms the size
	// of the match it lets start when too few players are available now
	// (a flexing alliance forms a match without letting anyone more in).
	NextRelaxation float64  `json:"next_relaxation,omitempty"`
	NextAdds       int      `json:"next_adds,omitempty"`
	NextForms      int      `json:"next_forms,omitempty"`
	Relaxes        []string `json:"relaxes,omitempty"`
	// FirstAdmit is the first relaxation that lets anyone in or a match
	// start, when the next one does not; FirstAdmitForms is the size of
	// that match.
	FirstAdmit      float64 `json:"first_admit,omitempty"`
	FirstAdmitForms int     `json:"first_admit_forms,omitempty"`
}

// ScenarioRefusal is a ticket the engine refused, with the reason.
type ScenarioRefusal struct {
	ID    string  `json:"id"`
	At    float64 `json:"at"`
	Error string  `json:"error"`
}

// Text renders the report for people: one line per match with its quality
// and the criteria it came from, then every waiting ticket with the rules
// that keep others out and when they relax.
func (r ScenarioReport) Text() string {
	var b strings.Builder
	if r.Name != "" {
		fmt.Fprintf(&b, "scenario %s\n", r.Name)
	}
	fmt.Fprintf(&b, "%d matches, %d waiting at t=%ss\n", len(r.Matches), len(r.Waiting), secs(r.End))
	for _, f := range r.Refused {
		fmt.Fprintf(&b, "refused %s at t=%ss: %s\n", f.ID, secs(f.At), f.Error)
	}
	for _, id := range r.Cancelled {
		fmt.Fprintf(&b, "cancelled %s\n", id)
	}
	for i, m := range r.Matches {
		teams := make([]string, len(m.Teams))
		for k, tm := range m.Teams {
			teams[k] = strings.Join(tm, " + ")
		}
		fmt.Fprintf(&b, "\nmatch %d at t=%ss: %s\n", i+1, secs(m.At), strings.Join(teams, "  vs  "))
		fmt.Fprintf(&b, "  quality %.3f (%s)\n", m.Quality, parts(m.Parts))
		fmt.Fprintf(&b, "  anchor %s at flex level %d", m.Anchor, m.Level)
		if m.Region != "" {
			fmt.Fprintf(&b, ", region %s", m.Region)
		}
		if m.Version != "" {
			fmt.Fprintf(&b, ", version %s", m.Version)
		}
		b.WriteString("\n")
		fmt.Fprintf(&b, "  waited: %s\n", waits(m.Waits))
		if len(m.Roles) > 0 {
			fmt.Fprintf(&b, "  roles: %s\n", roles(m.Roles))
		}
	}
	if len(r.Waiting) > 0 {
		fmt.Fprintf(&b, "\nwaiting at t=%ss:\n", secs(r.End))
	}
	for _, w := range r.Waiting {
		version := ""
		if w.Version != "" {
			version = "version " + w.Version + ", "
		}
		fmt.Fprintf(&b, "  %s (%swaited %ss): %d compatible, %d of %d players\n", w.ID, version, secs(w.Waited), w.Compatible, w.PlayersAvailable, w.PlayersNeeded)
		fmt.Fprintf(&b, "    %s\n", w.Summary)
		for _, bl := range w.Blocks {
			fmt.Fprintf(&b, "    - %s keeps out %d (nearest: %s)\n", bl.Rule, bl.Removed, bl.Nearest)
		}
		switch {
		case w.NextRelaxation > 0:
			fmt.Fprintf(&b, "    next relaxation at t=%ss ", secs(w.NextRelaxation))
			switch {
			case w.NextForms > 0 && w.NextAdds == 0:
				fmt.Fprintf(&b, "starts a match of %d players", w.NextForms)
			case w.NextForms > 0:
				fmt.Fprintf(&b, "lets %d more in and starts a match of %d players", w.NextAdds, w.NextForms)
			default:
				fmt.Fprintf(&b, "lets %d more in", w.NextAdds)
			}
			if len(w.Relaxes) > 0 {
				fmt.Fprintf(&b, ": %s", strings.Join(w.Relaxes, "; "))
			}
			b.WriteString("\n")
			switch {
			case w.FirstAdmit > 0 && w.FirstAdmitForms > 0:
				fmt.Fprintf(&b, "    first relaxation that starts a match: t=%ss (%d players)\n", secs(w.FirstAdmit), w.FirstAdmitForms)
			case w.FirstAdmit > 0:
				fmt.Fprintf(&b, "    first relaxation that lets anyone in: t=%ss\n", secs(w.FirstAdmit))
			}
		default:
			b.WriteString("    no relaxation left\n")
		}
	}
	return b.String()
}

func secs(f float64) string {
	s := fmt.Sprintf("%.3f", f)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

func parts(ps cupid.QualityParts) string {
	var out []string
	for _, q := range ps {
		out = append(out, fmt.Sprintf("%s %.3f", q.Name, q.Score))
	}
	return strings.Join(out, ", ")
}

func waits(m map[string]float64) string {
	var out []string
	for _, k := range cupid.SortedKeys(m) {
		out = append(out, fmt.Sprintf("%s %ss", k, secs(m[k])))
	}
	return strings.Join(out, ", ")
}

func roles(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k + "=" + m[k]
	}
	return strings.Join(out, " ")
}
