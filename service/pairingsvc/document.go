package pairingsvc

import (
	"encoding/json"
	"fmt"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/pairing"
)

// documentVersion is the format of the stored document; decode refuses
// others, so a future format change is made explicitly.
const documentVersion = 1

// document is how an event is stored: one JSON document per event, of kind
// DocumentKind, rewritten whole after every batch of changes. The event's
// state is the pairing package's Snapshot (settings, participants and their
// met records, rooms, round-robin plan, random state); the rest is what
// only the service knows.
type document struct {
	Version   int       `json:"version"`
	ID        string    `json:"id"`
	Name      string    `json:"name,omitempty"`
	CreatedAt time.Time `json:"created_at"`
	Seed      uint64    `json:"seed"`
	// Event is the pairing state; Restore checks its consistency.
	Event pairing.Snapshot `json:"event"`
}

// decode reads a stored document and rebuilds its event.
func decode(d cupid.Document) (document, *pairing.Event, error) {
	var doc document
	if err := json.Unmarshal(d.Body, &doc); err != nil {
		return doc, nil, fmt.Errorf("not a pairing event document: %w", err)
	}
	if doc.Version != documentVersion {
		return doc, nil, fmt.Errorf("document version %d, this server reads %d", doc.Version, documentVersion)
	}
	if doc.ID != d.ID {
		return doc, nil, fmt.Errorf("document of event %q stored under id %q", doc.ID, d.ID)
	}
	ev, err := pairing.Restore(doc.Event)
	if err != nil {
		return doc, nil, fmt.Errorf("inconsistent event state: %w", err)
	}
	return doc, ev, nil
}

// viewOf makes the callers' view of an event from its stored document.
func viewOf(doc *document) *EventView {
	s := &doc.Event
	return &EventView{
		ID:           doc.ID,
		Name:         doc.Name,
		CreatedAt:    doc.CreatedAt,
		Seed:         doc.Seed,
		Config:       s.Config,
		Phase:        s.Phase,
		Round:        s.Round,
		Deadline:     s.Deadline,
		Participants: s.Participants,
		Lobby:        s.Lobby,
		Pairs:        s.Pairs,
		Stale:        s.Stale,
		Paused:       s.Paused,
		Revealed:     s.Revealed,
		Seq:          s.Seq,
	}
}
