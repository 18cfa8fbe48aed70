package ticketsvc

import (
	"context"

	"github.com/cupid-match/cupid/internal/storeerr"
)

// TicketPlayers returns the ids of a ticket's players, for the API's
// authorization ("is this player in the ticket?"): one store read, without
// the match or the explanation GetTicket adds.
func (s *Service) TicketPlayers(ctx context.Context, id string) ([]string, error) {
	t, err := s.store.Ticket(ctx, id)
	if err != nil {
		return nil, storeerr.Domain(s.log, err)
	}
	out := make([]string, len(t.Players))
	for i, p := range t.Players {
		out[i] = p.ID
	}
	return out, nil
}
