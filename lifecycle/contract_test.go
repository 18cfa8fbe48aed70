package lifecycle_test

import (
	"testing"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/memstore"
	"github.com/cupid-match/cupid/storetest"
)

// TestStepsThroughAStore runs every step through a store's transaction:
// the store contract, on the in-memory store (sqlite and postgres run it on
// theirs), holds the steps' reads and writes to what the pure decisions
// promise.
func TestStepsThroughAStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) cupid.Store { return memstore.New() })
}
