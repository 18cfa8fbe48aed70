package sqlite

import (
	"testing"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/storetest"
)

func TestRetentionContract(t *testing.T) {
	storetest.RunRetention(t, func(t *testing.T) cupid.Store {
		s, _ := openTemp(t)
		return s
	})
}
