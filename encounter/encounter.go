// Package encounter holds the rules of who met whom: the encounters a
// meeting makes, a player's bounded history, block and avoid lists with
// their limits, and the "met within" questions the matchmaking modes ask.
// It is pure: no I/O, no clock (time comes in as an argument), so the
// real-time queue, the opponent finder and the speed-dating events answer
// the same question the same way, in the server and in tests alike.
package encounter

import (
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	cupid "github.com/cupid-match/cupid"
)

// The modes a meeting happens in.
const (
	// ModeQueue is a real-time match; its place is the queue.
	ModeQueue = "queue"
	// ModeOpponent is an async attack; its place is the opponent finder.
	ModeOpponent = "opponent"
	// ModePairing is a speed-dating round; its place is the event (or the
	// event's series).
	ModePairing = "pairing"
)

// The sides two players of a meeting were on.
const (
	SideOpponent = "opponent"
	SideTeammate = "teammate"
	// SideAttacker and SideDefender are the sides of an attack: the
	// player attacked the other, or was attacked by him.
	SideAttacker = "attacker"
	SideDefender = "defender"
)

// Limits of what a client can make the server keep.
const (
	// MaxOutcome bounds an outcome's length in bytes.
	MaxOutcome = 32
	// MaxMeetingPlayers bounds the players of one meeting whose pairs
	// are recorded: a meeting of n players makes n(n−1) encounters.
	MaxMeetingPlayers = 100
)

var modes = []string{ModeQueue, ModeOpponent, ModePairing}

// Meeting is something several players took part in together: a match
// (its teams), an attack (attacker and defender, two teams of one), a
// speed-dating pair or trio (one team: they met as opponents, in the
// sense of "people I was put with").
type Meeting struct {
	Mode  string
	Place string
	Ref   string
	At    time.Time
	// Teams are the players by team. Players of different teams met as
	// opponents, of one team as teammates; with one team everyone met
	// everyone as opponents (a date, a round's trio). An attack
	// (ModeOpponent) is two teams of one, the attacker first: their sides
	// are attacker and defender.
	Teams [][]string
	// Outcomes maps a player to his result, when known.
	Outcomes map[string]string
}

// Encounters lists the encounters a meeting makes, two for every pair of
// its players, or an error naming the field at fault. The order is fixed
// (by team, then player, then the other's team and position), so a test or
// a replay sees the same rows.
func (m Meeting) Encounters() ([]cupid.Encounter, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	var out []cupid.Encounter
	for ti, team := range m.Teams {
		for _, p := range team {
			for oi, other := range m.Teams {
				for _, o := range other {
					if o == p {
						continue
					}
					side := SideOpponent
					switch {
					case ti == oi && len(m.Teams) > 1:
						side = SideTeammate
					case m.Mode == ModeOpponent && ti == 0:
						side = SideAttacker
					case m.Mode == ModeOpponent:
						side = SideDefender
					}
					out = append(out, cupid.Encounter{
						Player: p, Other: o, Mode: m.Mode, Side: side, Place: m.Place,
						Ref: m.Ref, At: m.At.UTC(), Outcome: m.Outcomes[p],
					})
				}
			}
		}
	}
	return out, nil
}

func (m Meeting) check() error {
	if !slices.Contains(modes, m.Mode) {
		return cupid.Invalid("mode", "must be one of %v, got %q", modes, m.Mode)
	}
	if err := CheckID("place", m.Place); err != nil {
		return err
	}
	if err := CheckID("ref", m.Ref); err != nil {
		return err
	}
	if m.At.IsZero() {
		return cupid.Invalid("at", "required")
	}
	if m.Mode == ModeOpponent && (len(m.Teams) != 2 || len(m.Teams[0]) != 1 || len(m.Teams[1]) != 1) {
		return cupid.Invalid("teams", "an attack is two teams of one player, the attacker first")
	}
	seen := map[string]bool{}
	for ti, team := range m.Teams {
		for pi, p := range team {
			f := fmt.Sprintf("teams[%d][%d]", ti, pi)
			if err := CheckID(f, p); err != nil {
				return err
			}
			if seen[p] {
				return cupid.Invalid(f, "player %q is in the meeting twice", p)
			}
			seen[p] = true
		}
	}
	if len(seen) > MaxMeetingPlayers {
		return cupid.Invalid("teams", "at most %d players in one meeting, got %d", MaxMeetingPlayers, len(seen))
	}
	for _, p := range cupid.SortedKeys(m.Outcomes) {
		if !seen[p] {
			return cupid.Invalid("outcomes."+p, "player %q is not in the meeting", p)
		}
		if o := m.Outcomes[p]; len(o) > MaxOutcome || !utf8.ValidString(o) {
			return cupid.Invalid("outcomes."+p, "at most %d bytes of UTF-8", MaxOutcome)
		}
	}
	return nil
}

// CheckID checks a player id (or a place, a ref) the way tickets' ids are
// checked: 1 to cupid.MaxIDLength bytes of UTF-8.
func CheckID(field, id string) error {
	switch {
	case id == "":
		return cupid.Invalid(field, "required")
	case len(id) > cupid.MaxIDLength:
		return cupid.Invalid(field, "at most %d bytes, got %d", cupid.MaxIDLength, len(id))
	case !utf8.ValidString(id):
		return cupid.Invalid(field, "must be UTF-8")
	}
	return nil
}
