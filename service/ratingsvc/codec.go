package ratingsvc

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/cupid-match/cupid/rating"
)

// A player's state and his history lines are stored in a compact binary
// form rather than JSON. A state is read and rewritten at every game its
// player plays, and a result writes ten of each: as JSON a state was about
// 650 bytes and a history line 290, and encoding and decoding them was
// about half of the service's own CPU per result. In the binary form a
// 5v5 state is about 150 bytes and a line about 80, each written and read
// by hand without reflection, and a batch dirties fewer of the store's
// pages (the states are rewritten at random places in their table).
//
// The form starts with a version byte (binaryV1), which no JSON body
// starts with ('{' or white space), so rows stored as JSON before still
// read: decodeState and decodeChange take either. League days, low-
// priority marks and results stay JSON: they are few per batch, and a
// result is exported as JSON (retention's export).
//
// Numbers are stored exactly (float64 bits), except a recent game's
// expected score, which the JSON form already rounded to four decimals.
const binaryV1 = 0x01

// Bits of a binary state's or change's presence byte.
const (
	hasSkill = 1 << iota
	hasGlicko
	hasPeriodStart
	hasUpdatedAt
	flagTanking
	flagSmurf
	isLeaver
)

// encoder appends the binary form's pieces to a buffer.
type encoder struct{ b []byte }

func (e *encoder) byte(v byte)    { e.b = append(e.b, v) }
func (e *encoder) int(v int)      { e.b = binary.AppendVarint(e.b, int64(v)) }
func (e *encoder) varint(v int64) { e.b = binary.AppendVarint(e.b, v) }
func (e *encoder) float(v float64) {
	e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(v))
}
func (e *encoder) string(s string) {
	e.b = binary.AppendUvarint(e.b, uint64(len(s)))
	e.b = append(e.b, s...)
}
func (e *encoder) strings(ss []string) {
	e.b = binary.AppendUvarint(e.b, uint64(len(ss)))
	for _, s := range ss {
		e.string(s)
	}
}

// decoder reads what encoder wrote; the first thing missing or malformed
// sets err, and every read after it returns zero values.
type decoder struct {
	b   []byte
	err error
}

var errShort = errors.New("truncated")

func (d *decoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
	d.b = nil
}

func (d *decoder) byte() byte {
	if len(d.b) < 1 {
		d.fail(errShort)
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail(errShort)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) int() int {
	v := d.varint()
	if v < math.MinInt32 || v > math.MaxInt32 {
		d.fail(fmt.Errorf("count %d out of range", v))
		return 0
	}
	return int(v)
}

// count reads a length, which must fit in what is left of the body given
// at least min bytes per item: a corrupt length cannot make it allocate.
func (d *decoder) count(min int) int {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail(errShort)
		return 0
	}
	d.b = d.b[n:]
	if v > uint64(len(d.b)/max(min, 1)) {
		d.fail(errShort)
		return 0
	}
	return int(v)
}

func (d *decoder) float() float64 {
	if len(d.b) < 8 {
		d.fail(errShort)
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
	d.b = d.b[8:]
	return v
}

func (d *decoder) string() string {
	n := d.count(1)
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) strings() []string {
	n := d.count(1)
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.string()
	}
	return out
}

// time reads a time stored as Unix nanoseconds, in UTC.
func (d *decoder) time() time.Time { return time.Unix(0, d.varint()).UTC() }

// end reports what went wrong, or bytes left over.
func (d *decoder) end() error {
	if d.err == nil && len(d.b) > 0 {
		d.err = fmt.Errorf("%d bytes left over", len(d.b))
	}
	return d.err
}

// nanos is t as Unix nanoseconds; a time that does not fit (before 1678
// or after 2262) is refused rather than stored wrong.
func nanos(t time.Time) (int64, error) {
	n := t.UnixNano()
	if !time.Unix(0, n).Equal(t) {
		return 0, fmt.Errorf("time %s cannot be stored", t.Format(time.RFC3339))
	}
	return n, nil
}

// Recent games: the expected score in ten-thousandths, the score as one of
// the usual values or in full.
const (
	scoreLoss  = 0
	scoreDraw  = 1
	scoreWin   = 2
	scoreOther = 3
)

// encodeState is p's binary form.
func encodeState(p *PlayerRating) ([]byte, error) {
	e := &encoder{b: make([]byte, 0, 96+len(p.Rating)+len(p.Player)+3*len(p.Recent)+32*len(p.Pending))}
	bits := ratingBits(p.Skill, p.Glicko) | flagBits(p.Flags)
	if !p.PeriodStart.IsZero() {
		bits |= hasPeriodStart
	}
	if !p.UpdatedAt.IsZero() {
		bits |= hasUpdatedAt
	}
	e.byte(binaryV1)
	e.byte(bits)
	e.string(p.Rating)
	e.string(p.Player)
	e.ratingOf(p.Skill, p.Glicko)
	e.float(p.Value)
	e.string(p.League)
	for _, v := range []int{p.Division, p.Games, p.Wins, p.Losses, p.Draws, p.Leaves, p.LossesToday} {
		e.int(v)
	}
	e.string(p.Day)
	e.b = binary.AppendUvarint(e.b, uint64(len(p.Recent)))
	for _, g := range p.Recent {
		if !finiteAll(g.Expected, g.Score) || math.Abs(g.Expected) > 1e9 {
			return nil, fmt.Errorf("recent: a game's expected score or score is not a finite number")
		}
		e.varint(int64(math.Round(g.Expected * 1e4)))
		switch g.Score {
		case 0:
			e.byte(scoreLoss)
		case 0.5:
			e.byte(scoreDraw)
		case 1:
			e.byte(scoreWin)
		default:
			e.byte(scoreOther)
			e.float(g.Score)
		}
	}
	e.float(p.Flags.Ease)
	e.strings(p.Flags.Why)
	e.b = binary.AppendUvarint(e.b, uint64(len(p.Pending)))
	for _, g := range p.Pending {
		e.float(g.Opponent.R)
		e.float(g.Opponent.RD)
		e.float(g.Opponent.Sigma)
		e.float(g.Score)
	}
	for _, t := range []struct {
		bit byte
		at  time.Time
	}{{hasPeriodStart, p.PeriodStart}, {hasUpdatedAt, p.UpdatedAt}} {
		if bits&t.bit == 0 {
			continue
		}
		n, err := nanos(t.at)
		if err != nil {
			return nil, err
		}
		e.varint(n)
	}
	return e.b, nil
}

// ratingBits are the presence bits of a state's or change's rating: the
// model's, Skill or Glicko.
func ratingBits(skill *rating.Skill, glicko *rating.Glicko2) byte {
	var bits byte
	if skill != nil {
		bits |= hasSkill
	}
	if glicko != nil {
		bits |= hasGlicko
	}
	return bits
}

// ratingOf writes the rating that ratingBits says is there.
func (e *encoder) ratingOf(skill *rating.Skill, glicko *rating.Glicko2) {
	if skill != nil {
		e.float(skill.Mu)
		e.float(skill.Sigma)
	}
	if glicko != nil {
		e.float(glicko.R)
		e.float(glicko.RD)
		e.float(glicko.Sigma)
	}
}

// ratingOf reads the rating the presence bits say is there.
func (d *decoder) ratingOf(bits byte) (skill *rating.Skill, glicko *rating.Glicko2) {
	if bits&hasSkill != 0 {
		skill = &rating.Skill{Mu: d.float(), Sigma: d.float()}
	}
	if bits&hasGlicko != 0 {
		glicko = &rating.Glicko2{R: d.float(), RD: d.float(), Sigma: d.float()}
	}
	return skill, glicko
}

func flagBits(f rating.Flags) byte {
	var bits byte
	if f.Tanking {
		bits |= flagTanking
	}
	if f.Smurf {
		bits |= flagSmurf
	}
	return bits
}

// decodeState reads a player's stored state into p: the binary form, or
// the JSON it was stored as before.
func decodeState(body []byte, p *PlayerRating) error {
	if len(body) == 0 || body[0] != binaryV1 {
		return json.Unmarshal(body, p)
	}
	d := &decoder{b: body[1:]}
	bits := d.byte()
	p.Rating = d.string()
	p.Player = d.string()
	p.Skill, p.Glicko = d.ratingOf(bits)
	p.Value = d.float()
	p.League = d.string()
	for _, v := range []*int{&p.Division, &p.Games, &p.Wins, &p.Losses, &p.Draws, &p.Leaves, &p.LossesToday} {
		*v = d.int()
	}
	p.Day = d.string()
	if n := d.count(2); n > 0 {
		p.Recent = make(recentGames, n)
		for i := range p.Recent {
			p.Recent[i].Expected = float64(d.varint()) / 1e4
			switch c := d.byte(); c {
			case scoreLoss:
			case scoreDraw:
				p.Recent[i].Score = 0.5
			case scoreWin:
				p.Recent[i].Score = 1
			case scoreOther:
				p.Recent[i].Score = d.float()
			default:
				d.fail(fmt.Errorf("recent[%d]: score code %d", i, c))
			}
		}
	}
	p.Flags = rating.Flags{Tanking: bits&flagTanking != 0, Smurf: bits&flagSmurf != 0, Ease: d.float(), Why: d.strings()}
	if n := d.count(32); n > 0 {
		p.Pending = make([]rating.Game, n)
		for i := range p.Pending {
			p.Pending[i] = rating.Game{Opponent: rating.Glicko2{R: d.float(), RD: d.float(), Sigma: d.float()}, Score: d.float()}
		}
	}
	if bits&hasPeriodStart != 0 {
		p.PeriodStart = d.time()
	}
	if bits&hasUpdatedAt != 0 {
		p.UpdatedAt = d.time()
	}
	if err := d.end(); err != nil {
		return fmt.Errorf("binary state: %w", err)
	}
	return nil
}

// encodeChange is a history line's binary form: one player's change,
// without the player, rating, match and time its row holds already.
func encodeChange(ch *PlayerChange) ([]byte, error) {
	if !finiteAll(ch.Score, ch.Expected, ch.Before, ch.After, ch.Flags.Ease) {
		return nil, fmt.Errorf("a score or value of %s is not a finite number", ch.Player)
	}
	e := &encoder{b: make([]byte, 0, 80+len(ch.LeagueBefore)+len(ch.LeagueAfter))}
	bits := ratingBits(ch.Skill, ch.Glicko) | flagBits(ch.Flags)
	if ch.Leaver {
		bits |= isLeaver
	}
	e.byte(binaryV1)
	e.byte(bits)
	e.int(ch.Team)
	e.int(ch.Place)
	e.float(ch.Score)
	e.float(ch.Expected)
	e.float(ch.Before)
	e.float(ch.After)
	e.int(ch.Pending)
	e.ratingOf(ch.Skill, ch.Glicko)
	e.string(ch.LeagueBefore)
	e.string(ch.LeagueAfter)
	e.int(ch.DivisionBefore)
	e.int(ch.DivisionAfter)
	e.float(ch.Flags.Ease)
	e.strings(ch.Flags.Why)
	return e.b, nil
}

// decodeChange reads a history line of player into ch: the binary form,
// or the JSON it was stored as before.
func decodeChange(body []byte, player string, ch *PlayerChange) error {
	if len(body) == 0 || body[0] != binaryV1 {
		return json.Unmarshal(body, ch)
	}
	d := &decoder{b: body[1:]}
	bits := d.byte()
	*ch = PlayerChange{Player: player, Leaver: bits&isLeaver != 0, Team: d.int(), Place: d.int(),
		Score: d.float(), Expected: d.float(), Before: d.float(), After: d.float(), Pending: d.int()}
	ch.Skill, ch.Glicko = d.ratingOf(bits)
	ch.LeagueBefore = d.string()
	ch.LeagueAfter = d.string()
	ch.DivisionBefore = d.int()
	ch.DivisionAfter = d.int()
	ch.Flags = rating.Flags{Tanking: bits&flagTanking != 0, Smurf: bits&flagSmurf != 0, Ease: d.float(), Why: d.strings()}
	if err := d.end(); err != nil {
		return fmt.Errorf("binary history line: %w", err)
	}
	return nil
}
