package postgres

import (
	"testing"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/storetest"
)

func TestEncountersContract(t *testing.T) {
	needServer(t)
	storetest.RunEncounters(t, func(t *testing.T) cupid.EncounterStore { return openTemp(t) })
}
