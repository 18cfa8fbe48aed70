package pairingsvc

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/pairing"
)

// The round history in the store.
//
// Each computed round's record is stored once, as its own document of kind
// RoundKind, under "<event id>/<seq, ten digits>": ids sort by sequence
// within an event and an event's rounds are contiguous (an event id holds
// no "/", and "/" sorts before every character an id may hold after it).
// The event's own document, rewritten after every change, only lists which
// rounds are kept, so that a long event does not make every change cost
// more. Records are written before the event that counts them, in the same
// batch; a record whose event write then failed is overwritten when the
// round is computed again, and reads never go past the event's Seq.

// RoundKind is the kind under which round records are kept.
const RoundKind = "pairing-round"

// roundID is the document id of an event's round.
func roundID(eventID string, seq int) string {
	return fmt.Sprintf("%s/%010d", eventID, seq)
}

// putRounds stores the records of the rounds among notes.
func (e *event) putRounds(notes []pairing.Notification, now time.Time) error {
	for _, n := range notes {
		if n.Kind != pairing.KindRoundRecorded || n.Record == nil {
			continue
		}
		body, err := json.Marshal(n.Record)
		if err != nil {
			return fmt.Errorf("pairingsvc: encode round %d of %s: %w", n.Seq, e.doc.ID, err)
		}
		ctx, cancel := context.WithTimeout(e.ctx, storeTimeout)
		err = e.s.docs.PutDocument(ctx, e.fence, RoundKind, roundID(e.doc.ID, n.Seq), body, now)
		cancel()
		if err != nil {
			return err
		}
	}
	return nil
}

// deleteRounds deletes the records of rounds that fell out of the history.
// A failure is logged and the record stays behind: it is never read again,
// being outside the rounds the event keeps.
func (e *event) deleteRounds(seqs []int) {
	for _, seq := range seqs {
		ctx, cancel := context.WithTimeout(e.ctx, storeTimeout)
		err := e.s.docs.DeleteDocument(ctx, e.fence, RoundKind, roundID(e.doc.ID, seq))
		cancel()
		if err != nil {
			e.s.metrics.storeErrors.Inc()
			e.s.log.Warn("deleting an old round record failed; it stays in the store unread", "event", e.doc.ID, "seq", seq, "err", err)
		}
	}
}

// deleteAllRounds deletes every round record of a deleted event.
func (s *Service) deleteAllRounds(eventID string) {
	after := eventID + "/"
	epoch, fence := s.running()
	for {
		ctx, cancel := context.WithTimeout(epoch, storeTimeout)
		docs, err := s.docs.Documents(ctx, RoundKind, after, 256)
		cancel()
		if err != nil {
			s.log.Warn("listing a deleted event's round records failed; they stay in the store unread", "event", eventID, "err", err)
			return
		}
		for _, d := range docs {
			if !strings.HasPrefix(d.ID, eventID+"/") {
				return
			}
			ctx, cancel := context.WithTimeout(epoch, storeTimeout)
			err := s.docs.DeleteDocument(ctx, fence, RoundKind, d.ID)
			cancel()
			if err != nil {
				s.log.Warn("deleting a deleted event's round record failed; it stays in the store unread", "event", eventID, "id", d.ID, "err", err)
			}
			after = d.ID
		}
		if len(docs) < 256 {
			return
		}
	}
}

// readRounds reads up to limit stored rounds of an event with from <= seq
// <= to, in order.
func (s *Service) readRounds(ctx context.Context, eventID string, from, to, limit int) ([]pairing.RoundRecord, error) {
	var out []pairing.RoundRecord
	if from > to {
		return nil, nil
	}
	after := eventID + "/"
	if from > 1 {
		after = roundID(eventID, from-1)
	}
	for limit <= 0 || len(out) < limit {
		page := 256
		if limit > 0 {
			page = min(page, limit-len(out))
		}
		docs, err := s.docs.Documents(ctx, RoundKind, after, page)
		if err != nil {
			return nil, cupid.Errorf(cupid.CodeUnavailable, "", "the round history could not be read; try again")
		}
		for _, d := range docs {
			rest, ok := strings.CutPrefix(d.ID, eventID+"/")
			if !ok {
				return out, nil
			}
			seq, err := strconv.Atoi(rest)
			if err != nil || seq > to {
				return out, nil
			}
			var r pairing.RoundRecord
			if err := json.Unmarshal(d.Body, &r); err != nil || r.Seq != seq {
				s.log.Error("a stored round record cannot be read; it is skipped", "event", eventID, "id", d.ID, "err", err)
				continue
			}
			out = append(out, r)
			after = d.ID
		}
		if len(docs) < page {
			break
		}
	}
	return out, nil
}
