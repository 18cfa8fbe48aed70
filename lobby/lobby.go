// Package lobby holds the rules of custom games: a host opens a lobby for a
// queue with a fixed number of teams and seats, players join it (by its id
// when it is public, by its join code always), pick a team or are placed,
// mark themselves ready, and the host starts it, which turns it into a
// match through the same hand-off as a queue's matches.
//
// The package is pure: every transition takes the time (and, for a new
// lobby, its id and code) as inputs and returns the lobby as it now is with
// the events it emitted, or a *cupid.Error naming the field at fault and
// the lobby unchanged. Who may call which transition (the host alone does
// host things) is decided here, not in the transport, so every caller
// (the API with a player token, a trusted backend with a server key) gets
// the same answer.
package lobby

import (
	"slices"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// State is where a lobby is in its life: open (players come and go),
// starting (the host started it; its match is being stored), started (its
// match exists: the lobby's life is over) or closed (the host closed it,
// or everyone left). Started and closed are final.
type State string

// The states of a lobby.
const (
	Open     State = "open"
	Starting State = "starting"
	Started  State = "started"
	Closed   State = "closed"
)

// Final reports whether the lobby can no longer change.
func (s State) Final() bool { return s == Started || s == Closed }

// Visibility says who can find a lobby: public lobbies are listed and may
// be joined by id; private ones are joined only with their code.
type Visibility string

// The visibilities of a lobby.
const (
	Public  Visibility = "public"
	Private Visibility = "private"
)

// Settings are what the host chooses when he opens a lobby.
type Settings struct {
	// Name is shown in lists; optional.
	Name string `json:"name,omitempty"`
	// Queue is the queue (game mode) the lobby's match belongs to: its
	// match log, assignment and sessions are the queue's.
	Queue string `json:"queue"`
	// Teams is the number of teams, TeamSize the seats of each.
	Teams    int `json:"teams"`
	TeamSize int `json:"team_size"`
	// Visibility is public unless set to private.
	Visibility Visibility `json:"visibility"`
	// Attributes are free-form labels players filter the list on (map,
	// region, "casual" …).
	Attributes map[string]string `json:"attributes,omitempty"`
	// FillFromQueue starts the lobby's match open to backfill while it
	// has free seats: the queue's pool fills them with waiting tickets
	// under the queue's ruleset, as it fills any game session, so a lobby
	// short of players starts and is completed from matchmaking.
	FillFromQueue bool `json:"fill_from_queue,omitempty"`
}

// Member is one player in a lobby.
type Member struct {
	ID       string    `json:"id"`
	Team     int       `json:"team"`
	Ready    bool      `json:"ready,omitempty"`
	JoinedAt time.Time `json:"joined_at"`
	// Attributes are the player's own values, carried into his ticket
	// when the lobby starts (mmr for the rating, a role …).
	Attributes cupid.Attributes `json:"attributes,omitempty"`
}

// Lobby is one custom game being put together. A Lobby is a value: every
// transition returns a new one and leaves its receiver as it was.
type Lobby struct {
	ID   string `json:"id"`
	Code string `json:"code"`
	Host string `json:"host"`
	Settings
	// Members are in the order they joined; the first is the next host
	// when the host leaves.
	Members []Member `json:"members"`
	Locked  bool     `json:"locked,omitempty"`
	State   State    `json:"state"`
	// Kicked are the players the host removed: they may not come back.
	Kicked    []string  `json:"kicked,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// MatchID is the match the lobby became (set from starting on).
	MatchID string `json:"match_id,omitempty"`
	// Reason says why a lobby closed, or why its last start was refused.
	Reason string `json:"reason,omitempty"`
	// Seq numbers the lobby's events: the last one emitted.
	Seq int64 `json:"seq"`
}

// EventKind says what happened in a lobby.
type EventKind string

// The kinds of lobby events.
const (
	EventCreated     EventKind = "created"
	EventJoined      EventKind = "joined"
	EventLeft        EventKind = "left"
	EventKicked      EventKind = "kicked"
	EventTeamChanged EventKind = "team_changed"
	EventReady       EventKind = "ready"
	EventNotReady    EventKind = "not_ready"
	EventLocked      EventKind = "locked"
	EventUnlocked    EventKind = "unlocked"
	EventHostChanged EventKind = "host_changed"
	EventStarting    EventKind = "starting"
	EventStartFailed EventKind = "start_failed"
	EventStarted     EventKind = "started"
	EventClosed      EventKind = "closed"
)

// Event is one change of a lobby, numbered in the lobby's own sequence so a
// watcher that reconnects resumes after the last one it saw.
type Event struct {
	Seq    int64     `json:"seq"`
	Kind   EventKind `json:"kind"`
	At     time.Time `json:"at"`
	Player string    `json:"player,omitempty"`
	Team   int       `json:"team,omitempty"`
	// MatchID is set on starting and started.
	MatchID string `json:"match_id,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// Final reports whether the event ends the lobby.
func (k EventKind) Final() bool { return k == EventStarted || k == EventClosed }

// Clone returns a copy sharing nothing that a transition changes.
func (l *Lobby) Clone() *Lobby {
	c := *l
	c.Members = slices.Clone(l.Members)
	c.Kicked = slices.Clone(l.Kicked)
	return &c
}

// Member returns a member and his index, or -1.
func (l *Lobby) Member(id string) (Member, int) {
	for i, m := range l.Members {
		if m.ID == id {
			return m, i
		}
	}
	return Member{}, -1
}

// TeamCounts is how many members each team has.
func (l *Lobby) TeamCounts() []int {
	n := make([]int, l.Teams)
	for _, m := range l.Members {
		if m.Team >= 0 && m.Team < len(n) {
			n[m.Team]++
		}
	}
	return n
}

// Seats is the number of players the lobby holds when full.
func (l *Lobby) Seats() int { return l.Teams * l.TeamSize }

// Free is the number of empty seats.
func (l *Lobby) Free() int { return l.Seats() - len(l.Members) }

// Players lists the members' ids in joining order.
func (l *Lobby) Players() []string {
	ids := make([]string, len(l.Members))
	for i, m := range l.Members {
		ids[i] = m.ID
	}
	return ids
}
