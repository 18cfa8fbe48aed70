package sqlite

import (
	"testing"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/storetest"
)

func TestEncountersContract(t *testing.T) {
	storetest.RunEncounters(t, func(t *testing.T) cupid.EncounterStore {
		s, _ := openTemp(t)
		return s
	})
}
