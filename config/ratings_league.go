package config

import "github.com/cupid-match/cupid/rating"

// League is the rating's ladder as package rating takes it (no divisions
// when the rating has no leagues).
func (r *RatingConfig) League() rating.League {
	var l rating.League
	if r.Leagues == nil {
		return l
	}
	l.Margin = r.Leagues.Margin
	for _, d := range r.Leagues.Divisions {
		l.Divisions = append(l.Divisions, rating.Division{Name: d.Name, Min: d.Min})
	}
	return l
}
