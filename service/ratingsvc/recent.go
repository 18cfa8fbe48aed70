package ratingsvc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/cupid-match/cupid/rating"
)

// recentGames are a player's last games as the fair-play checks read
// them, stored compactly: [[expected, score], …], the expected score
// rounded to four decimals. A player's state is read and written at every
// game he plays; as objects ({"Expected":0.8129205512568121,"Score":1})
// twenty games were two thirds of its bytes and most of the time spent
// decoding it. Four decimals move the smurf check, an average over the
// window against a threshold like 0.25, by less than 0.0001.
type recentGames []rating.Outcome

// MarshalJSON writes the compact form.
func (r recentGames) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 2+12*len(r))
	b = append(b, '[')
	for i, o := range r {
		if !finiteAll(o.Expected, o.Score) {
			return nil, &json.UnsupportedValueError{Str: "a recent game's score is not a finite number"}
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendFloat(b, math.Round(o.Expected*1e4)/1e4, 'f', -1, 64)
		b = append(b, ',')
		b = strconv.AppendFloat(b, o.Score, 'f', -1, 64)
		b = append(b, ']')
	}
	return append(b, ']'), nil
}

// UnmarshalJSON reads the compact form, or the objects states were stored
// with before it.
func (r *recentGames) UnmarshalJSON(data []byte) error {
	if out, ok := parseRecent(data); ok {
		*r = out
		return nil
	}
	if t := bytes.TrimLeft(data, " \t\r\n["); len(t) > 0 && t[0] == '{' {
		var old []rating.Outcome
		if err := json.Unmarshal(data, &old); err != nil {
			return err
		}
		*r = old
		return nil
	}
	var pairs [][]float64
	if err := json.Unmarshal(data, &pairs); err != nil {
		return err
	}
	*r = make(recentGames, len(pairs))
	for i, p := range pairs {
		if len(p) != 2 {
			return fmt.Errorf("recent[%d]: want [expected, score], got %d numbers", i, len(p))
		}
		(*r)[i] = rating.Outcome{Expected: p[0], Score: p[1]}
	}
	return nil
}

// parseRecent reads the compact form exactly as MarshalJSON writes it, with
// no spaces; anything else is left to encoding/json.
func parseRecent(data []byte) (recentGames, bool) {
	if len(data) < 2 || data[0] != '[' || data[len(data)-1] != ']' {
		return nil, false
	}
	s := data[1 : len(data)-1]
	var out recentGames
	for len(s) > 0 {
		if s[0] != '[' {
			return nil, false
		}
		end := bytes.IndexByte(s, ']')
		comma := bytes.IndexByte(s[:max(end, 0)], ',')
		if end < 0 || comma < 0 {
			return nil, false
		}
		e, err1 := strconv.ParseFloat(string(s[1:comma]), 64)
		sc, err2 := strconv.ParseFloat(string(s[comma+1:end]), 64)
		if err1 != nil || err2 != nil {
			return nil, false
		}
		out = append(out, rating.Outcome{Expected: e, Score: sc})
		s = s[end+1:]
		if len(s) > 0 {
			if s[0] != ',' {
				return nil, false
			}
			s = s[1:]
		}
	}
	return out, true
}

func finiteAll(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
