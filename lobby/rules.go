package lobby

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	cupid "github.com/cupid-match/cupid"
)

// Limits bound what one lobby and one host may hold, so that nothing a
// client sends makes the server grow without bound. Zero fields take the
// defaults of DefaultLimits.
type Limits struct {
	// MaxTeams bounds Settings.Teams, MaxTeamSize Settings.TeamSize and
	// MaxSeats their product.
	MaxTeams    int `json:"max_teams"`
	MaxTeamSize int `json:"max_team_size"`
	MaxSeats    int `json:"max_seats"`
	// MaxPerHost is how many live (open or starting) lobbies one player
	// may host at once.
	MaxPerHost int `json:"max_per_host"`
	// MaxLobbies bounds the live lobbies of the whole server.
	MaxLobbies int `json:"max_lobbies"`
	// MaxAttributes bounds Settings.Attributes; each name and value is at
	// most MaxAttributeBytes.
	MaxAttributes     int `json:"max_attributes"`
	MaxAttributeBytes int `json:"max_attribute_bytes"`
	// MaxNameBytes bounds Settings.Name.
	MaxNameBytes int `json:"max_name_bytes"`
	// MaxKicked bounds the list of players a lobby keeps out; past it the
	// oldest is forgotten.
	MaxKicked int `json:"max_kicked"`
	// PageSize is a list page's size when the caller asks none,
	// MaxPageSize the most a caller may ask.
	PageSize    int `json:"page_size"`
	MaxPageSize int `json:"max_page_size"`
}

// DefaultLimits are the documented limits (docs/lobbies.md).
var DefaultLimits = Limits{
	MaxTeams: 16, MaxTeamSize: 64, MaxSeats: 128,
	MaxPerHost: 1, MaxLobbies: 10_000,
	MaxAttributes: 16, MaxAttributeBytes: 128, MaxNameBytes: 100,
	MaxKicked: 100,
	PageSize:  50, MaxPageSize: 200,
}

// WithDefaults fills zero fields from DefaultLimits and refuses negative
// ones.
func (l Limits) WithDefaults() (Limits, error) {
	d := DefaultLimits
	for _, f := range []struct {
		name string
		v    *int
		def  int
	}{
		{"max_teams", &l.MaxTeams, d.MaxTeams}, {"max_team_size", &l.MaxTeamSize, d.MaxTeamSize},
		{"max_seats", &l.MaxSeats, d.MaxSeats}, {"max_per_host", &l.MaxPerHost, d.MaxPerHost},
		{"max_lobbies", &l.MaxLobbies, d.MaxLobbies}, {"max_attributes", &l.MaxAttributes, d.MaxAttributes},
		{"max_attribute_bytes", &l.MaxAttributeBytes, d.MaxAttributeBytes}, {"max_name_bytes", &l.MaxNameBytes, d.MaxNameBytes},
		{"max_kicked", &l.MaxKicked, d.MaxKicked}, {"page_size", &l.PageSize, d.PageSize},
		{"max_page_size", &l.MaxPageSize, d.MaxPageSize},
	} {
		switch {
		case *f.v < 0:
			return l, cupid.Invalid(f.name, "must not be negative, got %d", *f.v)
		case *f.v == 0:
			*f.v = f.def
		}
	}
	if l.PageSize > l.MaxPageSize {
		return l, cupid.Invalid("page_size", "must be at most max_page_size (%d), got %d", l.MaxPageSize, l.PageSize)
	}
	return l, nil
}

// PageSize is the size of a list page for a caller who asked for n: the
// default for 0, refused above the maximum.
func (l Limits) Page(n int) (int, error) {
	switch {
	case n < 0:
		return 0, cupid.Invalid("page_size", "must not be negative, got %d", n)
	case n == 0:
		return l.PageSize, nil
	case n > l.MaxPageSize:
		return 0, cupid.Invalid("page_size", "at most %d, got %d", l.MaxPageSize, n)
	}
	return n, nil
}

// CheckSettings refuses settings no lobby may have, naming the field.
func (l Limits) CheckSettings(s Settings) error {
	if err := checkText("queue", s.Queue, cupid.MaxIDLength, true); err != nil {
		return err
	}
	if err := checkText("name", s.Name, l.MaxNameBytes, false); err != nil {
		return err
	}
	switch {
	case s.Teams < 1 || s.Teams > l.MaxTeams:
		return cupid.Invalid("teams", "must be between 1 and %d, got %d", l.MaxTeams, s.Teams)
	case s.TeamSize < 1 || s.TeamSize > l.MaxTeamSize:
		return cupid.Invalid("team_size", "must be between 1 and %d, got %d", l.MaxTeamSize, s.TeamSize)
	case s.Teams*s.TeamSize > l.MaxSeats:
		return cupid.Invalid("team_size", "teams × team_size is %d seats, at most %d", s.Teams*s.TeamSize, l.MaxSeats)
	case s.Visibility != Public && s.Visibility != Private:
		return cupid.Invalid("visibility", "must be public or private, got %q", s.Visibility)
	case len(s.Attributes) > l.MaxAttributes:
		return cupid.Invalid("attributes", "at most %d attributes, got %d", l.MaxAttributes, len(s.Attributes))
	}
	for _, k := range cupid.SortedKeys(s.Attributes) {
		if err := checkText("attributes", k, l.MaxAttributeBytes, true); err != nil {
			return cupid.Invalid("attributes", "names must be 1 to %d bytes of UTF-8 text, got %q", l.MaxAttributeBytes, k)
		}
		if err := checkText("attributes."+k, s.Attributes[k], l.MaxAttributeBytes, false); err != nil {
			return err
		}
	}
	return nil
}

// CheckPlayer refuses a player id or player attributes no ticket could
// carry, naming field.
func CheckPlayer(field string, p cupid.Player) error {
	t := cupid.Ticket{Key: cupid.QueueKey{Queue: "lobby"}, Players: []cupid.Player{p}}
	if err := t.Validate(); err != nil {
		e, ok := err.(*cupid.Error)
		if !ok {
			return err
		}
		f := field
		if e.Field != "players[0].id" {
			f = strings.TrimPrefix(e.Field, "players[0].")
		}
		return &cupid.Error{Code: e.Code, Field: f, Message: e.Message}
	}
	return nil
}

func checkText(field, s string, max int, required bool) error {
	switch {
	case required && s == "":
		return cupid.Invalid(field, "required")
	case len(s) > max:
		return cupid.Invalid(field, "at most %d bytes, got %d", max, len(s))
	case !utf8.ValidString(s):
		return cupid.Invalid(field, "must be valid UTF-8")
	case strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return cupid.Invalid(field, "must not contain control characters")
	}
	return nil
}

// New opens a lobby: the host is its first member, placed on the first
// team. id and code come from the caller (the service's generator), so a
// replay makes the same lobby.
func New(id, code, host string, attrs cupid.Attributes, s Settings, lim Limits, now time.Time) (*Lobby, []Event, error) {
	if s.Visibility == "" {
		s.Visibility = Public
	}
	if err := lim.CheckSettings(s); err != nil {
		return nil, nil, cupid.Within("settings", err)
	}
	if err := CheckPlayer("host", cupid.Player{ID: host, Attributes: attrs}); err != nil {
		return nil, nil, err
	}
	l := &Lobby{ID: id, Code: code, Host: host, Settings: s, State: Open, CreatedAt: now, UpdatedAt: now}
	l.Members = []Member{{ID: host, Team: 0, JoinedAt: now, Attributes: attrs}}
	evs := l.emit(nil, Event{Kind: EventCreated, Player: host, At: now})
	return l, evs, nil
}

// emit numbers events in the lobby's sequence and stamps the lobby.
func (l *Lobby) emit(evs []Event, more ...Event) []Event {
	for _, e := range more {
		l.Seq++
		e.Seq = l.Seq
		l.UpdatedAt = e.At
		evs = append(evs, e)
	}
	return evs
}

// open refuses any change to a lobby that is no longer open.
func (l *Lobby) open() error {
	if l.State != Open {
		return cupid.Conflict("lobby_id", "lobby %s is %s", l.ID, l.State)
	}
	return nil
}

// hostOnly refuses a host's action by anyone else.
func (l *Lobby) hostOnly(by, what string) error {
	if by != l.Host {
		return cupid.Errorf(cupid.CodeDenied, "player", "only the host (%s) may %s lobby %s, not %s", l.Host, what, l.ID, quote(by))
	}
	return nil
}

func quote(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// AnyTeam asks Join or SetTeam to place the player on the team with the
// most free seats (the lowest numbered among equals).
const AnyTeam = -1

// Join adds a player. team is a team index or AnyTeam. viaCode says he gave
// the lobby's code (a private lobby is joined only so); a code that does
// not match is the caller's to refuse before.
func (l *Lobby) Join(player string, attrs cupid.Attributes, team int, viaCode bool, now time.Time) (*Lobby, []Event, error) {
	if err := l.open(); err != nil {
		return nil, nil, err
	}
	if err := CheckPlayer("player", cupid.Player{ID: player, Attributes: attrs}); err != nil {
		return nil, nil, err
	}
	switch {
	case l.Visibility == Private && !viaCode:
		return nil, nil, cupid.Errorf(cupid.CodeDenied, "code", "lobby %s is private: join it with its code", l.ID)
	case l.Locked:
		return nil, nil, cupid.Conflict("lobby_id", "lobby %s is locked by its host", l.ID)
	case slices.Contains(l.Kicked, player):
		return nil, nil, cupid.Errorf(cupid.CodeDenied, "player", "player %s was removed from lobby %s by its host", player, l.ID)
	}
	if _, i := l.Member(player); i >= 0 {
		return nil, nil, cupid.Errorf(cupid.CodeAlreadyExists, "player", "player %s is already in lobby %s", player, l.ID)
	}
	if l.Free() <= 0 {
		return nil, nil, cupid.Errorf(cupid.CodeExhausted, "lobby_id", "lobby %s is full (%d seats)", l.ID, l.Seats())
	}
	t, err := l.pick(team, -1)
	if err != nil {
		return nil, nil, err
	}
	n := l.Clone()
	n.Members = append(n.Members, Member{ID: player, Team: t, JoinedAt: now, Attributes: attrs})
	return n, n.emit(nil, Event{Kind: EventJoined, Player: player, Team: t, At: now}), nil
}

// pick chooses a team with a free seat for a player now on team from (-1
// for none): the team asked, or the emptiest.
func (l *Lobby) pick(team, from int) (int, error) {
	counts := l.TeamCounts()
	if from >= 0 {
		counts[from]--
	}
	if team == AnyTeam {
		best := -1
		for i, c := range counts {
			if c < l.TeamSize && (best < 0 || c < counts[best]) {
				best = i
			}
		}
		if best < 0 {
			return 0, cupid.Errorf(cupid.CodeExhausted, "lobby_id", "lobby %s is full (%d seats)", l.ID, l.Seats())
		}
		return best, nil
	}
	if team < 0 || team >= l.Teams {
		return 0, cupid.Invalid("team", "must be between 0 and %d (or -1 for any team), got %d", l.Teams-1, team)
	}
	if counts[team] >= l.TeamSize {
		return 0, cupid.Errorf(cupid.CodeExhausted, "team", "team %d of lobby %s is full (%d seats)", team, l.ID, l.TeamSize)
	}
	return team, nil
}

// member finds a member or refuses, naming field.
func (l *Lobby) member(field, player string) (int, error) {
	if _, i := l.Member(player); i >= 0 {
		return i, nil
	}
	return -1, cupid.NotFound(field, "player %s is not in lobby %s", quote(player), l.ID)
}

// Leave takes a player out. A host who leaves hands the lobby to the member
// who joined first; the last one out closes it.
func (l *Lobby) Leave(player string, now time.Time) (*Lobby, []Event, error) {
	if err := l.open(); err != nil {
		return nil, nil, err
	}
	i, err := l.member("player", player)
	if err != nil {
		return nil, nil, err
	}
	n := l.Clone()
	n.Members = slices.Delete(n.Members, i, i+1)
	evs := n.emit(nil, Event{Kind: EventLeft, Player: player, At: now})
	return n, n.afterLeaving(evs, player, "the host left", now), nil
}

// afterLeaving gives the lobby a new host when its host is gone, or closes
// it when nobody is left.
func (n *Lobby) afterLeaving(evs []Event, gone, why string, now time.Time) []Event {
	if len(n.Members) == 0 {
		n.State, n.Reason = Closed, "everyone left"
		return n.emit(evs, Event{Kind: EventClosed, At: now, Reason: n.Reason})
	}
	if gone == n.Host {
		n.Host = n.Members[0].ID
		evs = n.emit(evs, Event{Kind: EventHostChanged, Player: n.Host, At: now, Reason: why})
	}
	return evs
}

// Kick removes a member; the host alone may, not himself (he leaves).
func (l *Lobby) Kick(by, player string, now time.Time) (*Lobby, []Event, error) {
	if err := l.open(); err != nil {
		return nil, nil, err
	}
	if err := l.hostOnly(by, "kick players from"); err != nil {
		return nil, nil, err
	}
	if player == by {
		return nil, nil, cupid.Invalid("target", "the host leaves his lobby (LeaveLobby) rather than kicking himself")
	}
	i, err := l.member("target", player)
	if err != nil {
		return nil, nil, err
	}
	n := l.Clone()
	n.Members = slices.Delete(n.Members, i, i+1)
	n.Kicked = append(n.Kicked, player)
	if over := len(n.Kicked) - DefaultLimits.MaxKicked; over > 0 {
		n.Kicked = slices.Delete(n.Kicked, 0, over)
	}
	return n, n.emit(nil, Event{Kind: EventKicked, Player: player, At: now, Reason: "removed by the host"}), nil
}

// SetTeam moves a member to another team (AnyTeam: the emptiest). A move
// clears his ready flag: he agreed to play on the team he was on.
func (l *Lobby) SetTeam(player string, team int, now time.Time) (*Lobby, []Event, error) {
	if err := l.open(); err != nil {
		return nil, nil, err
	}
	i, err := l.member("player", player)
	if err != nil {
		return nil, nil, err
	}
	if l.Locked {
		return nil, nil, cupid.Conflict("lobby_id", "lobby %s is locked by its host: teams cannot change", l.ID)
	}
	t, err := l.pick(team, l.Members[i].Team)
	if err != nil {
		return nil, nil, err
	}
	if t == l.Members[i].Team {
		return l, nil, nil
	}
	n := l.Clone()
	n.Members[i].Team, n.Members[i].Ready = t, false
	return n, n.emit(nil, Event{Kind: EventTeamChanged, Player: player, Team: t, At: now}), nil
}

// SetReady marks a member ready or not; the same flag again changes
// nothing.
func (l *Lobby) SetReady(player string, ready bool, now time.Time) (*Lobby, []Event, error) {
	if err := l.open(); err != nil {
		return nil, nil, err
	}
	i, err := l.member("player", player)
	if err != nil {
		return nil, nil, err
	}
	if l.Members[i].Ready == ready {
		return l, nil, nil
	}
	n := l.Clone()
	n.Members[i].Ready = ready
	kind := EventReady
	if !ready {
		kind = EventNotReady
	}
	return n, n.emit(nil, Event{Kind: kind, Player: player, Team: n.Members[i].Team, At: now}), nil
}

// SetLocked locks (nobody joins, teams stay) or unlocks the lobby; the host
// alone may.
func (l *Lobby) SetLocked(by string, locked bool, now time.Time) (*Lobby, []Event, error) {
	if err := l.open(); err != nil {
		return nil, nil, err
	}
	if err := l.hostOnly(by, "lock or unlock"); err != nil {
		return nil, nil, err
	}
	if l.Locked == locked {
		return l, nil, nil
	}
	n := l.Clone()
	n.Locked = locked
	kind := EventLocked
	if !locked {
		kind = EventUnlocked
	}
	return n, n.emit(nil, Event{Kind: kind, Player: by, At: now}), nil
}

// HandOver makes another member the host; the host alone may.
func (l *Lobby) HandOver(by, to string, now time.Time) (*Lobby, []Event, error) {
	if err := l.open(); err != nil {
		return nil, nil, err
	}
	if err := l.hostOnly(by, "hand over"); err != nil {
		return nil, nil, err
	}
	if _, err := l.member("target", to); err != nil {
		return nil, nil, err
	}
	if to == by {
		return l, nil, nil
	}
	n := l.Clone()
	n.Host = to
	return n, n.emit(nil, Event{Kind: EventHostChanged, Player: to, At: now, Reason: "handed over by " + by}), nil
}

// Start is the host's: every member ready and no team empty. The lobby is
// starting, with the id its match will have, until the service stored the
// match (Started) or the store refused it (StartFailed).
func (l *Lobby) Start(by, matchID string, now time.Time) (*Lobby, []Event, error) {
	if err := l.open(); err != nil {
		return nil, nil, err
	}
	if err := l.hostOnly(by, "start"); err != nil {
		return nil, nil, err
	}
	var notReady []string
	for _, m := range l.Members {
		if !m.Ready {
			notReady = append(notReady, m.ID)
		}
	}
	if len(notReady) > 0 {
		return nil, nil, cupid.Conflict("lobby_id", "lobby %s cannot start: not ready: %s", l.ID, strings.Join(notReady, ", "))
	}
	for t, c := range l.TeamCounts() {
		if c == 0 {
			return nil, nil, cupid.Conflict("lobby_id", "lobby %s cannot start: team %d has no player", l.ID, t)
		}
	}
	n := l.Clone()
	n.State, n.MatchID, n.Reason = Starting, matchID, ""
	return n, n.emit(nil, Event{Kind: EventStarting, Player: by, MatchID: matchID, At: now}), nil
}

// Formed ends a starting lobby: its match is stored.
func (l *Lobby) Formed(now time.Time) (*Lobby, []Event, error) {
	if l.State != Starting {
		return nil, nil, cupid.Conflict("lobby_id", "lobby %s is %s, not starting", l.ID, l.State)
	}
	n := l.Clone()
	n.State = Started
	return n, n.emit(nil, Event{Kind: EventStarted, MatchID: n.MatchID, At: now}), nil
}

// StartFailed opens a starting lobby again: the store refused its match
// (a player is in another live match …), with why.
func (l *Lobby) StartFailed(why string, now time.Time) (*Lobby, []Event, error) {
	if l.State != Starting {
		return nil, nil, cupid.Conflict("lobby_id", "lobby %s is %s, not starting", l.ID, l.State)
	}
	n := l.Clone()
	n.State, n.MatchID, n.Reason = Open, "", why
	return n, n.emit(nil, Event{Kind: EventStartFailed, At: now, Reason: why}), nil
}

// Close ends an open lobby without a match; by is the host, or "" for the
// server (reason then says why).
func (l *Lobby) Close(by, reason string, now time.Time) (*Lobby, []Event, error) {
	if err := l.open(); err != nil {
		return nil, nil, err
	}
	if by != "" {
		if err := l.hostOnly(by, "close"); err != nil {
			return nil, nil, err
		}
		reason = "closed by the host"
	}
	n := l.Clone()
	n.State, n.Reason = Closed, reason
	return n, n.emit(nil, Event{Kind: EventClosed, Player: by, At: now, Reason: reason}), nil
}

// Teams lists the members of each team in joining order: the match's
// teams when it starts.
func (l *Lobby) TeamPlayers() [][]Member {
	out := make([][]Member, l.Teams)
	for _, m := range l.Members {
		out[m.Team] = append(out[m.Team], m)
	}
	return out
}

// Filter selects public open lobbies in a list.
type Filter struct {
	// Queue, when set, keeps lobbies of that queue.
	Queue string
	// Attributes keeps lobbies whose attributes have every one of these
	// values.
	Attributes map[string]string
	// MinFree keeps lobbies with at least that many empty seats.
	MinFree int
	// IncludeLocked keeps locked lobbies too.
	IncludeLocked bool
}

// Check refuses a filter no list could answer sensibly.
func (f Filter) Check(lim Limits) error {
	if f.MinFree < 0 {
		return cupid.Invalid("min_free_seats", "must not be negative, got %d", f.MinFree)
	}
	if len(f.Attributes) > lim.MaxAttributes {
		return cupid.Invalid("attributes", "at most %d attributes, got %d", lim.MaxAttributes, len(f.Attributes))
	}
	if len(f.Queue) > cupid.MaxIDLength {
		return cupid.Invalid("queue", "at most %d bytes, got %d", cupid.MaxIDLength, len(f.Queue))
	}
	return nil
}

// Matches reports whether a lobby is listed under the filter: public, open,
// unlocked unless asked, and everything the filter names.
func (f Filter) Matches(l *Lobby) bool {
	if l.Visibility != Public || l.State != Open || (l.Locked && !f.IncludeLocked) {
		return false
	}
	if f.Queue != "" && l.Queue != f.Queue {
		return false
	}
	if l.Free() < max(f.MinFree, 0) {
		return false
	}
	for k, v := range f.Attributes {
		if got, ok := l.Attributes[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// Describe is a one-line account of a lobby for logs.
func (l *Lobby) Describe() string {
	return fmt.Sprintf("lobby %s (%s, %d/%d, %s)", l.ID, l.Queue, len(l.Members), l.Seats(), l.State)
}

// codeAlphabet leaves out letters and digits people confuse (0/O, 1/I/L).
const codeAlphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"

// CodeLength is the length of a join code: 31^6, about 887 million codes.
const CodeLength = 6

// NewCode makes a join code from a source of randomness (intn returns a
// number in [0, n)), so tests and replays choose theirs.
func NewCode(intn func(n int) int) string {
	b := make([]byte, CodeLength)
	for i := range b {
		b[i] = codeAlphabet[intn(len(codeAlphabet))]
	}
	return string(b)
}

// NormalizeCode makes a code typed by a person comparable: upper case,
// spaces and dashes dropped.
func NormalizeCode(code string) string {
	code = strings.ToUpper(code)
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' {
			return -1
		}
		return r
	}, code)
}
