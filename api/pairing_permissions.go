package api

import (
	"context"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// asPeer lets a player make a call about another person only as the
// participant himself: his own record and never list are his to change.
func asPeer(_ *Auth, _ context.Context, _ ticketPlayers, p string, m any) error {
	return sameParticipant(p, m.(*cupidv1.PeerRequest).GetParticipant())
}
