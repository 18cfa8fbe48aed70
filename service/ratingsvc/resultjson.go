package ratingsvc

import (
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// A stored result stays JSON: retention exports it as it is, and a repeat
// of the report reads it back with encoding/json. It is written by hand
// here, though: through encoding/json's reflection (and its check of every
// change's bytes embedded as json.RawMessage) it was a sixth of a result's
// CPU through SQLite. The bytes are those encoding/json writes for the
// same values (TestResultJSONIsEncodingJSONs), so old and new results
// read alike.

// appendResultJSON appends a result's body: the storedResult of the
// normalised report, whose JSON (report, as digest encoded it) and digest
// are given, and its outcome.
func appendResultJSON(b []byte, dig string, report []byte, out *Outcome) ([]byte, error) {
	if dig != "" {
		b = append(b, `{"digest":`...)
		b = appendJSONString(b, dig)
		b = append(b, ',')
	} else {
		b = append(b, '{')
	}
	b = append(b, `"report":`...)
	b = append(b, report...)
	b = append(b, `,"outcome":{"match_id":`...)
	b = appendJSONString(b, out.MatchID)
	b = append(b, `,"rating":`...)
	b = appendJSONString(b, out.Rating)
	b = append(b, `,"at":`...)
	if y := out.At.Year(); y < 0 || y > 9999 {
		return nil, fmt.Errorf("result time %v out of JSON's range", out.At)
	}
	b = append(b, '"')
	b = out.At.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","players":`...)
	if out.Players == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range out.Players {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendChangeJSON(b, &out.Players[i]); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	}
	return append(b, "}}"...), nil
}

// appendChangeJSON appends a player's change as encoding/json writes
// PlayerChange: its fields in order, omitempty ones left out when zero.
func appendChangeJSON(b []byte, ch *PlayerChange) ([]byte, error) {
	if !finiteAll(ch.Score, ch.Expected, ch.Before, ch.After, ch.Flags.Ease) {
		return nil, fmt.Errorf("a score or value of %s is not a finite number", ch.Player)
	}
	b = append(b, `{"player":`...)
	b = appendJSONString(b, ch.Player)
	b = append(b, `,"team":`...)
	b = strconv.AppendInt(b, int64(ch.Team), 10)
	b = append(b, `,"place":`...)
	b = strconv.AppendInt(b, int64(ch.Place), 10)
	b = append(b, `,"score":`...)
	b = appendJSONFloat(b, ch.Score)
	b = append(b, `,"expected":`...)
	b = appendJSONFloat(b, ch.Expected)
	if ch.Leaver {
		b = append(b, `,"leaver":true`...)
	}
	b = append(b, `,"before":`...)
	b = appendJSONFloat(b, ch.Before)
	b = append(b, `,"after":`...)
	b = appendJSONFloat(b, ch.After)
	if ch.Pending != 0 {
		b = append(b, `,"pending":`...)
		b = strconv.AppendInt(b, int64(ch.Pending), 10)
	}
	if s := ch.Skill; s != nil {
		if !finiteAll(s.Mu, s.Sigma) {
			return nil, fmt.Errorf("the skill of %s is not a finite number", ch.Player)
		}
		b = append(b, `,"skill":{"Mu":`...)
		b = appendJSONFloat(b, s.Mu)
		b = append(b, `,"Sigma":`...)
		b = appendJSONFloat(b, s.Sigma)
		b = append(b, '}')
	}
	if g := ch.Glicko; g != nil {
		if !finiteAll(g.R, g.RD, g.Sigma) {
			return nil, fmt.Errorf("the Glicko-2 rating of %s is not a finite number", ch.Player)
		}
		b = append(b, `,"glicko":{"R":`...)
		b = appendJSONFloat(b, g.R)
		b = append(b, `,"RD":`...)
		b = appendJSONFloat(b, g.RD)
		b = append(b, `,"Sigma":`...)
		b = appendJSONFloat(b, g.Sigma)
		b = append(b, '}')
	}
	if ch.LeagueBefore != "" {
		b = append(b, `,"league_before":`...)
		b = appendJSONString(b, ch.LeagueBefore)
	}
	if ch.LeagueAfter != "" {
		b = append(b, `,"league_after":`...)
		b = appendJSONString(b, ch.LeagueAfter)
	}
	b = append(b, `,"division_before":`...)
	b = strconv.AppendInt(b, int64(ch.DivisionBefore), 10)
	b = append(b, `,"division_after":`...)
	b = strconv.AppendInt(b, int64(ch.DivisionAfter), 10)
	b = append(b, `,"flags":{`...)
	sep := ""
	if ch.Flags.Tanking {
		b = append(b, `"tanking":true`...)
		sep = ","
	}
	if ch.Flags.Smurf {
		b = append(b, sep+`"smurf":true`...)
		sep = ","
	}
	if ch.Flags.Ease != 0 {
		b = append(b, sep+`"ease":`...)
		b = appendJSONFloat(b, ch.Flags.Ease)
		sep = ","
	}
	if len(ch.Flags.Why) > 0 {
		b = append(b, sep+`"why":[`...)
		for i, w := range ch.Flags.Why {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, w)
		}
		b = append(b, ']')
	}
	return append(b, "}}"...), nil
}

// appendJSONFloat writes a finite float64 as encoding/json does: the
// shortest decimal that reads back exactly, with an exponent only for very
// small or very large magnitudes (as JavaScript prints numbers).
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// 1e-07 is written 1e-7.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// appendJSONString writes s as a JSON string as encoding/json does: the
// quote, the backslash and control characters escaped, <, > and & as
// \u00XX so the JSON is safe inside HTML, invalid UTF-8 as U+FFFD, and
// U+2028 and U+2029, which JavaScript reads as line ends, escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
