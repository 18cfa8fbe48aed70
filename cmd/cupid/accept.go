package main

import (
	"time"

	"github.com/cupid-match/cupid/config"
	"github.com/cupid-match/cupid/service/ticketsvc"
)

// queueAcceptance turns a queue's acceptance settings into the ticket
// service's ready check (none when the queue has none).
func queueAcceptance(qc *config.QueueConfig) ticketsvc.Acceptance {
	if qc.Acceptance == nil {
		return ticketsvc.Acceptance{}
	}
	return ticketsvc.Acceptance{Timeout: time.Duration(qc.Acceptance.Timeout), OnDecline: ticketsvc.OnDecline(qc.Acceptance.OnDecline)}
}
