package memstore

import (
	"testing"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/storetest"
)

func TestRatingsContract(t *testing.T) {
	storetest.RunRatings(t, func(t *testing.T) cupid.RatingStore { return open(t) })
}

func TestEncountersContract(t *testing.T) {
	storetest.RunEncounters(t, func(t *testing.T) cupid.EncounterStore { return open(t) })
}
