package opponent

import (
	"container/heap"
	"math"
	"strconv"
	"time"

	"github.com/cupid-match/cupid"
)

// Players can be unavailable for a while without leaving the cache:
//
//   - held: a query that reserves offers the defender to one attacker and
//     holds him until the reservation is confirmed (the attack happened),
//     released, or lapses at its expiry;
//   - shielded: for Config.Shield after a confirmed attack;
//   - online: while the game says the player is playing (SetOnline).
//
// A player's state lives in a map by player id, whether or not the player
// is cached (a shield must outlast an eviction, and an online player whom
// the scan brings in must not be offered), and is mirrored into the row of
// each of the player's cached entries as one "unavailable until" time, so a
// query skips such a candidate from the row it reads anyway, at no cost to
// a finder that has none. Times come in as arguments: expiry needs no
// clock, since a row whose time has passed is simply available again, and
// Sweep forgets lapsed states when the caller asks.

// Reservation is a defender held for an attacker.
type Reservation struct {
	ID       string    `json:"id"`
	Attacker string    `json:"attacker"`
	Defender string    `json:"defender"`
	Created  time.Time `json:"created"`
	Expires  time.Time `json:"expires"`
	// Bucket is the key of the bucket of the entry offered, so that
	// confirming applies the offer-removal threshold to that entry.
	Bucket string `json:"bucket,omitempty"`
}

// PlayerState is what makes a player unavailable, as the server stores it
// (one document per player) so that it survives a restart.
type PlayerState struct {
	PlayerID    string       `json:"player_id"`
	Reservation *Reservation `json:"reservation,omitempty"`
	ShieldUntil time.Time    `json:"shield_until,omitzero"`
	Online      bool         `json:"online,omitempty"`
}

func (s *PlayerState) empty() bool {
	return s.Reservation == nil && s.ShieldUntil.IsZero() && !s.Online
}

// until is the time the player becomes available, in Unix nanoseconds: 0
// when free, math.MaxInt64 while online.
func (s *PlayerState) until() int64 {
	if s == nil {
		return 0
	}
	if s.Online {
		return math.MaxInt64
	}
	var u int64
	if s.Reservation != nil {
		u = s.Reservation.Expires.UnixNano()
	}
	if !s.ShieldUntil.IsZero() {
		u = max(u, s.ShieldUntil.UnixNano())
	}
	return u
}

// expiry is a time at which a reservation (res != "") or a shield (res ==
// "") of a player may lapse; stale ones are skipped when they come up.
type expiry struct {
	at     int64
	player string
	res    string
}

type expiryHeap []expiry

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].at < h[j].at }
func (h expiryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *expiryHeap) Push(x any)        { *h = append(*h, x.(expiry)) }
func (h *expiryHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Ended reservations are remembered, a bounded number of them, so that
// confirming one that lapsed or was released says so instead of "not
// found".
const maxEnded = 4096

type ending struct {
	how string // "confirmed", "released", "expired"
	at  time.Time
}

// holds is the finder's state of unavailable players.
type holds struct {
	states       map[string]*PlayerState
	reservations map[string]*Reservation
	expiries     expiryHeap
	ended        map[string]ending
	endedOrder   []string // ring of maxEnded ids, oldest first once full
	endedNext    int
	shielded     int
	online       int
	// lapsed are players whose state lapsed in a sweep made inside a
	// query or SetOnline, kept for the next Sweep to report.
	lapsed []string
}

// Counters of reservations are in Counters; these are the current counts.
func (f *Finder) holdCounts() (held, shielded, online int) {
	return len(f.h.reservations), f.h.shielded, f.h.online
}

// blockedUntil is when the player becomes available (see PlayerState.until).
func (f *Finder) blockedUntil(id string) int64 {
	if len(f.h.states) == 0 {
		return 0
	}
	return f.h.states[id].until()
}

// markRows writes the player's availability into the rows of all his
// cached entries.
func (f *Finder) markRows(id string) {
	v, ok := f.index[id]
	if !ok {
		return
	}
	u := uint64(f.blockedUntil(id))
	h := hashID(id)
	if !f.s.cfg.AllowMultipleEntriesPerPlayer {
		b := f.buckets[v]
		if i := b.find(h, id); i >= 0 {
			b.setWord64(i, rowUntil, u)
		}
		return
	}
	n := 0
	for _, b := range f.buckets {
		if i := b.find(h, id); i >= 0 {
			b.setWord64(i, rowUntil, u)
			if n++; n == int(v) {
				return
			}
		}
	}
}

// state returns the player's state, creating an empty one when create is
// set; creating one past MaxPlayerStates is refused.
func (f *Finder) state(id string, create bool) (*PlayerState, error) {
	if st := f.h.states[id]; st != nil || !create {
		return st, nil
	}
	if len(f.h.states) >= f.s.cfg.MaxPlayerStates {
		return nil, cupid.Errorf(cupid.CodeExhausted, "max_player_states",
			"%d players are held, shielded or online, the most this finder keeps; try again when some are free", len(f.h.states))
	}
	if f.h.states == nil {
		f.h.states = make(map[string]*PlayerState)
		f.h.reservations = make(map[string]*Reservation)
		f.h.ended = make(map[string]ending)
	}
	st := &PlayerState{PlayerID: id}
	f.h.states[id] = st
	return st, nil
}

// settle forgets an empty state and writes the player's rows.
func (f *Finder) settle(st *PlayerState) {
	if st.empty() {
		delete(f.h.states, st.PlayerID)
	}
	f.markRows(st.PlayerID)
}

func (f *Finder) endReservation(r *Reservation, how string, at time.Time) {
	delete(f.h.reservations, r.ID)
	if len(f.h.endedOrder) < maxEnded {
		f.h.endedOrder = append(f.h.endedOrder, r.ID)
	} else {
		delete(f.h.ended, f.h.endedOrder[f.h.endedNext])
		f.h.endedOrder[f.h.endedNext] = r.ID
		f.h.endedNext = (f.h.endedNext + 1) % maxEnded
	}
	f.h.ended[r.ID] = ending{how: how, at: at}
}

// hold holds the defender of a successful query for the attacker.
func (f *Finder) hold(q *Query, defender, bucketKey string, now time.Time) (*Reservation, error) {
	st, err := f.state(defender, true)
	if err != nil {
		return nil, err
	}
	if st.Reservation != nil {
		// Lapsed (a live one would have kept the defender out of the
		// query): end it before the new one.
		f.endReservation(st.Reservation, "expired", st.Reservation.Expires)
		f.stats.Expired++
	}
	r := &Reservation{
		ID:       f.reservationID(now),
		Attacker: q.AttackerID,
		Defender: defender,
		Created:  now.UTC(),
		Expires:  now.Add(time.Duration(f.s.cfg.Reservations.Hold)).UTC(),
		Bucket:   bucketKey,
	}
	st.Reservation = r
	f.h.reservations[r.ID] = r
	heap.Push(&f.h.expiries, expiry{at: r.Expires.UnixNano(), player: defender, res: r.ID})
	f.stats.Reserved++
	f.settle(st)
	return r, nil
}

// reservationID makes an id from the time and the finder's random source:
// the time keeps ids of one finder unique across restarts (the random
// source starts over from the seed), the random part within one instant.
func (f *Finder) reservationID(now time.Time) string {
	for {
		b := make([]byte, 0, 40)
		b = append(b, "rsv_"...)
		b = strconv.AppendInt(b, now.UnixMicro(), 36)
		b = append(b, '_')
		b = strconv.AppendUint(b, f.rng.Uint64(), 36)
		id := string(b)
		if _, used := f.h.reservations[id]; used {
			continue
		}
		if _, used := f.h.ended[id]; used {
			continue
		}
		return id
	}
}

// Reservation returns a live or lapsed-but-not-swept reservation by id.
func (f *Finder) Reservation(id string) (Reservation, bool) {
	r := f.h.reservations[id]
	if r == nil {
		return Reservation{}, false
	}
	return *r, true
}

// lookupReservation finds a live reservation for Confirm and Release, or
// says why there is none: never existed, or ended (and how). A
// reservation past its expiry is ended here as expired.
func (f *Finder) lookupReservation(id, attacker string, now time.Time) (*Reservation, error) {
	if id == "" {
		return nil, invalid("reservation_id", "is required")
	}
	r := f.h.reservations[id]
	if r == nil {
		if e, ok := f.h.ended[id]; ok {
			return nil, cupid.Conflict("reservation_id", "reservation %s was %s at %s", id, e.how, e.at.UTC().Format(time.RFC3339Nano))
		}
		return nil, cupid.NotFound("reservation_id", "no reservation %q", id)
	}
	if attacker != "" && r.Attacker != attacker {
		return nil, cupid.Errorf(cupid.CodeDenied, "attacker_id", "reservation %s is held for attacker %s, not %s", id, r.Attacker, attacker)
	}
	if !now.Before(r.Expires) {
		st := f.h.states[r.Defender]
		st.Reservation = nil
		f.endReservation(r, "expired", r.Expires)
		f.stats.Expired++
		f.settle(st)
		return nil, cupid.Conflict("reservation_id", "reservation %s expired at %s", id, r.Expires.Format(time.RFC3339Nano))
	}
	return r, nil
}

// Confirmation says what confirming an attack did.
type Confirmation struct {
	Reservation Reservation `json:"reservation"`
	// ShieldUntil is when the defender's shield ends; zero without one.
	ShieldUntil time.Time `json:"shield_until,omitzero"`
	// RemovedAfterOffer is true when the offered entry left the cache, its
	// bucket being filled at or above the offer-removal threshold.
	RemovedAfterOffer bool `json:"removed_after_offer,omitempty"`
}

// Confirm records that the attack of a reservation happened: the hold ends,
// the defender's shield starts (Config.Shield), and the offer-removal
// threshold, which a reserving query leaves for now, applies to the entry
// that was offered. attacker, when not empty, must be the reservation's.
// An unknown reservation is not found; one that ended (released, expired,
// already confirmed) is a failed precondition; either changes nothing.
func (f *Finder) Confirm(id, attacker string, now time.Time) (Confirmation, error) {
	r, err := f.lookupReservation(id, attacker, now)
	if err != nil {
		return Confirmation{}, err
	}
	st := f.h.states[r.Defender]
	st.Reservation = nil
	f.endReservation(r, "confirmed", now)
	f.stats.Confirmed++
	c := Confirmation{Reservation: *r}
	if d := time.Duration(f.s.cfg.Shield); d > 0 {
		if st.ShieldUntil.IsZero() {
			f.h.shielded++
		}
		st.ShieldUntil = now.Add(d).UTC()
		c.ShieldUntil = st.ShieldUntil
		heap.Push(&f.h.expiries, expiry{at: st.ShieldUntil.UnixNano(), player: r.Defender})
	}
	f.settle(st)
	if b, i := f.offeredEntry(r); b != nil && b.fill() >= f.s.removeLevel {
		f.removeAt(b, i)
		f.stats.OfferRemoved++
		c.RemovedAfterOffer = true
	}
	return c, nil
}

// offeredEntry finds the cached entry a reservation offered, if it is
// still cached.
func (f *Finder) offeredEntry(r *Reservation) (*bucket, int) {
	v, ok := f.index[r.Defender]
	if !ok {
		return nil, -1
	}
	h := hashID(r.Defender)
	if !f.s.cfg.AllowMultipleEntriesPerPlayer {
		b := f.buckets[v]
		return b, b.find(h, r.Defender)
	}
	for _, b := range f.buckets {
		if b.key == r.Bucket {
			if i := b.find(h, r.Defender); i >= 0 {
				return b, i
			}
			return nil, -1
		}
	}
	return nil, -1
}

// Release ends a reservation without an attack: the defender may be offered
// again at once. Same errors as Confirm.
func (f *Finder) Release(id, attacker string, now time.Time) (Reservation, error) {
	r, err := f.lookupReservation(id, attacker, now)
	if err != nil {
		return Reservation{}, err
	}
	st := f.h.states[r.Defender]
	st.Reservation = nil
	f.endReservation(r, "released", now)
	f.stats.Released++
	f.settle(st)
	return *r, nil
}

// SetOnline sets or clears a player's online flag: while it is set the
// player is never offered. Clearing it for a player without one changes
// nothing. Setting it for a new player past MaxPlayerStates is refused.
func (f *Finder) SetOnline(playerID string, online bool, now time.Time) error {
	if err := checkID("player_id", playerID); err != nil {
		return err
	}
	f.sweep(now)
	st, err := f.state(playerID, online)
	if err != nil || st == nil || st.Online == online {
		return err
	}
	st.Online = online
	if online {
		f.h.online++
	} else {
		f.h.online--
	}
	f.settle(st)
	return nil
}

// PlayerState returns a copy of a player's state; false when the player is
// free.
func (f *Finder) PlayerState(id string) (PlayerState, bool) {
	st := f.h.states[id]
	if st == nil {
		return PlayerState{}, false
	}
	c := *st
	if st.Reservation != nil {
		r := *st.Reservation
		c.Reservation = &r
	}
	return c, true
}

// Sweep forgets reservations and shields that lapsed by now and returns
// the players whose state changed since the last Sweep (reserving queries
// and SetOnline sweep too, to make room), for the server to store.
// Availability never waits for it (a row's time is compared with the
// query's), so it only reclaims memory and keeps the stored states current.
func (f *Finder) Sweep(now time.Time) []string {
	f.sweep(now)
	changed := f.h.lapsed
	f.h.lapsed = nil
	return changed
}

func (f *Finder) sweep(now time.Time) {
	n := now.UnixNano()
	for len(f.h.expiries) > 0 && f.h.expiries[0].at <= n {
		ev := heap.Pop(&f.h.expiries).(expiry)
		st := f.h.states[ev.player]
		if st == nil {
			continue
		}
		switch {
		case ev.res != "":
			r := st.Reservation
			if r == nil || r.ID != ev.res || now.Before(r.Expires) {
				continue
			}
			st.Reservation = nil
			f.endReservation(r, "expired", r.Expires)
			f.stats.Expired++
		default:
			if st.ShieldUntil.IsZero() || now.Before(st.ShieldUntil) {
				continue
			}
			st.ShieldUntil = time.Time{}
			f.h.shielded--
		}
		f.h.lapsed = append(f.h.lapsed, ev.player)
		f.settle(st)
	}
}

// NextExpiry is when Sweep next has something to do; zero when nothing
// lapses.
func (f *Finder) NextExpiry() time.Time {
	if len(f.h.expiries) == 0 {
		return time.Time{}
	}
	return time.Unix(0, f.h.expiries[0].at)
}

// LoadStates installs stored player states, typically at start-up: what
// lapsed by now is dropped, and a reservation id given twice, a state
// for a player id that is not valid or beyond MaxPlayerStates is refused
// with the whole load (nothing changes). Reservations load only into a
// finder that takes them; without that, only online flags load.
func (f *Finder) LoadStates(states []PlayerState, now time.Time) error {
	seen := map[string]bool{}
	res := map[string]bool{}
	kept := 0
	for i := range states {
		st := &states[i]
		field := "states[" + strconv.Itoa(i) + "]"
		if err := checkID(field+".player_id", st.PlayerID); err != nil {
			return err
		}
		if seen[st.PlayerID] {
			return invalid(field+".player_id", "%q is given twice", st.PlayerID)
		}
		seen[st.PlayerID] = true
		if r := st.Reservation; r != nil {
			if r.ID == "" || res[r.ID] || r.Defender != st.PlayerID {
				return invalid(field+".reservation", "needs a unique id and the player as its defender")
			}
			res[r.ID] = true
		}
		if f.h.states[st.PlayerID] == nil && (st.Online || st.Reservation != nil && now.Before(st.Reservation.Expires) || now.Before(st.ShieldUntil)) {
			kept++
		}
	}
	if kept+len(f.h.states) > f.s.cfg.MaxPlayerStates {
		return cupid.Errorf(cupid.CodeExhausted, "max_player_states", "%d stored states still apply, more than the %d this finder keeps", kept+len(f.h.states), f.s.cfg.MaxPlayerStates)
	}
	for i := range states {
		in := states[i]
		if in.Reservation != nil && (!f.s.cfg.Reservations.Enabled || !now.Before(in.Reservation.Expires)) {
			in.Reservation = nil
		}
		if !in.ShieldUntil.IsZero() && (f.s.cfg.Shield <= 0 || !now.Before(in.ShieldUntil)) {
			in.ShieldUntil = time.Time{}
		}
		if in.empty() {
			continue
		}
		st, _ := f.state(in.PlayerID, true)
		if old := st.Reservation; old != nil {
			delete(f.h.reservations, old.ID)
		}
		if !st.ShieldUntil.IsZero() {
			f.h.shielded--
		}
		if st.Online {
			f.h.online--
		}
		*st = in
		if r := st.Reservation; r != nil {
			rc := *r
			st.Reservation = &rc
			f.h.reservations[rc.ID] = &rc
			heap.Push(&f.h.expiries, expiry{at: rc.Expires.UnixNano(), player: st.PlayerID, res: rc.ID})
		}
		if !st.ShieldUntil.IsZero() {
			f.h.shielded++
			heap.Push(&f.h.expiries, expiry{at: st.ShieldUntil.UnixNano(), player: st.PlayerID})
		}
		if st.Online {
			f.h.online++
		}
		f.settle(st)
	}
	return nil
}
