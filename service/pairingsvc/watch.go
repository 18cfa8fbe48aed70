package pairingsvc

import (
	"context"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/pairing"
)

// Kinds of notification the service adds to the pairing package's.
const (
	// KindWatching is the first message of every watch: the event's phase,
	// round and deadline at that moment, and for a participant their state
	// (and room and partner when in one). A client that (re)connects
	// starts from it; everything after it is news.
	KindWatching pairing.Kind = "watching"
	// KindEventDeleted is the last message of a watch whose event was
	// deleted.
	KindEventDeleted pairing.Kind = "event_deleted"
)

// Notification is what a watcher receives: a pairing notification, plus,
// on KindWatching, the participant's state and the event's phase.
type Notification struct {
	pairing.Notification
	// State is the participant's state on KindWatching: away, lobby, room
	// or gone; empty for the organiser or a key the event does not know.
	State pairing.State
	// Phase is the event's phase on KindWatching.
	Phase pairing.Phase
}

// watchBuffer is how many batches of notifications (one per change of the
// event, a whole round being one) a watcher may lag behind before it is
// dropped. Publishing never waits for a watcher.
const watchBuffer = 64

// subscriber is one watch of one event.
type subscriber struct {
	// participant filters the notifications; empty means all of them.
	participant string
	ch          chan []Notification
	// quit is closed by the watcher when it stops watching.
	quit chan struct{}
	// Set by the event's goroutine before it closes ch: deleted when the
	// event was deleted (at deletedAt), otherwise the watcher fell behind.
	deleted   bool
	deletedAt time.Time
	// afterSeq asks for the recorded rounds after it (negative: none);
	// first and last are the rounds kept when the watch began.
	afterSeq    int
	first, last int
}

// Watch calls send with an event's notifications — all of them, or with a
// participant those for that participant — from a first KindWatching
// message on, until ctx ends, send fails, the watcher falls behind (an
// unavailable error: read the event again and watch again) or the event
// is deleted (a final KindEventDeleted message, then nil). Nothing is
// missed between the KindWatching message and the end. The participant
// need not have joined yet, so a client can watch before it joins.
func (s *Service) Watch(ctx context.Context, eventID, participant string, send func(Notification) error) error {
	return s.WatchAfter(ctx, eventID, participant, -1, send)
}

// WatchAfter is Watch that, for the organiser (no participant) and with
// afterSeq >= 0, first replays the recorded rounds with a sequence number
// after afterSeq as round_recorded notifications, right after the watching
// message, so that a client that kept the last Seq it saw misses no round.
// Rounds dropped by the history limits cannot be replayed; the first one
// sent then tells by its Seq. A participant's watch has no replay: the
// records name everyone.
func (s *Service) WatchAfter(ctx context.Context, eventID, participant string, afterSeq int, send func(Notification) error) error {
	if participant != "" {
		if err := pairing.CheckKey(participant); err != nil {
			return err
		}
		if afterSeq >= 0 {
			return cupid.Invalid("after_seq", "replays the organiser's round records; a participant's watch has none")
		}
	}
	sub := &subscriber{participant: participant, ch: make(chan []Notification, watchBuffer), quit: make(chan struct{}), afterSeq: afterSeq}
	e, err := s.call(ctx, eventID, "event_id", &op{read: func(e *event) { e.subscribe(sub) }})
	if err != nil {
		return err
	}
	s.metrics.watchers.Inc()
	defer func() {
		s.metrics.watchers.Dec()
		close(sub.quit)
		// Tell the event at once if its inbox has room; otherwise it
		// notices quit at its next notification.
		e.inbox.TryDo(&op{read: func(e *event) { e.unsubscribe(sub) }, done: make(chan struct{})})
	}()
	replayed := sub.afterSeq < 0
	for {
		select {
		case batch, ok := <-sub.ch:
			if !ok {
				if sub.deleted {
					n := Notification{Notification: pairing.Notification{Participant: participant, Kind: KindEventDeleted, At: sub.deletedAt}}
					if err := send(n); err != nil {
						return err
					}
					return nil
				}
				return cupid.Errorf(cupid.CodeUnavailable, "", "the watch fell behind; get the event and watch again")
			}
			for _, n := range batch {
				if err := send(n); err != nil {
					return err
				}
			}
			if !replayed {
				// Right after the watching message: the rounds stored up
				// to it. Later ones wait in the channel meanwhile.
				replayed = true
				if err := s.replay(ctx, eventID, sub, send); err != nil {
					return err
				}
			}
		case <-ctx.Done():
			return ctx.Err()
		case <-e.ctx.Done():
			return errShuttingDown
		}
	}
}

// replay sends the stored rounds after sub.afterSeq up to the last one
// when the watch began, in pages.
func (s *Service) replay(ctx context.Context, eventID string, sub *subscriber, send func(Notification) error) error {
	from := max(sub.afterSeq+1, sub.first)
	for from <= sub.last && sub.last > 0 {
		records, err := s.readRounds(ctx, eventID, from, sub.last, MaxHistoryPage)
		if err != nil {
			return err
		}
		if len(records) == 0 {
			return nil
		}
		for i := range records {
			r := &records[i]
			n := Notification{Notification: pairing.Notification{Kind: pairing.KindRoundRecorded, Seq: r.Seq, Round: r.Round, At: r.At, Record: r}}
			if err := send(n); err != nil {
				return err
			}
		}
		from = records[len(records)-1].Seq + 1
	}
	return nil
}

// subscribe registers a watcher and gives it its KindWatching message, on
// the event's goroutine, after the batch's changes were stored and
// published: the message describes exactly the state the following
// notifications start from.
func (e *event) subscribe(sub *subscriber) {
	v := e.view.Load()
	n := Notification{
		Notification: pairing.Notification{
			Participant: sub.participant,
			Kind:        KindWatching,
			Round:       v.Round,
			Deadline:    v.Deadline,
			At:          e.s.now().UTC(),
		},
		Phase: v.Phase,
	}
	n.Seq = e.ev.Seq()
	if sub.participant != "" {
		if st, ok := e.ev.Status(sub.participant); ok {
			n.State, n.Room, n.Partner, n.Third = st.State, st.Room, st.Partner, st.Third
		}
	}
	sub.first, sub.last = e.ev.Kept() // before the send, which publishes them
	sub.ch <- []Notification{n}       // the buffer is new and empty
	if sub.participant == "" {
		e.all[sub] = struct{}{}
		return
	}
	m := e.byKey[sub.participant]
	if m == nil {
		m = map[*subscriber]struct{}{}
		e.byKey[sub.participant] = m
	}
	m[sub] = struct{}{}
}

// unsubscribe forgets a watcher.
func (e *event) unsubscribe(sub *subscriber) {
	if sub.participant == "" {
		delete(e.all, sub)
		return
	}
	if m := e.byKey[sub.participant]; m != nil {
		delete(m, sub)
		if len(m) == 0 {
			delete(e.byKey, sub.participant)
		}
	}
}

// publish hands the notifications of one stored change to the watchers:
// the organiser's get all of them, each participant's watchers theirs. The
// cost is one pass over the notifications, however many watch.
func (e *event) publish(notes []pairing.Notification) {
	if len(notes) == 0 || len(e.all) == 0 && len(e.byKey) == 0 {
		return
	}
	out := make([]Notification, len(notes))
	for i, n := range notes {
		out[i] = Notification{Notification: n}
	}
	for sub := range e.all {
		e.deliver(sub, out)
	}
	if len(e.byKey) == 0 {
		return
	}
	mine := map[*subscriber][]Notification{}
	for _, n := range out {
		for sub := range e.byKey[n.Participant] {
			mine[sub] = append(mine[sub], n)
		}
	}
	for sub, ns := range mine {
		e.deliver(sub, ns)
	}
}

// deliver gives a watcher a batch without waiting: a watcher that has gone
// is forgotten, one whose buffer is full is dropped (its watch ends with
// an error and the client starts again from the event's state).
func (e *event) deliver(sub *subscriber, batch []Notification) {
	select {
	case <-sub.quit:
		e.unsubscribe(sub)
		return
	default:
	}
	select {
	case sub.ch <- batch:
	default:
		e.unsubscribe(sub)
		close(sub.ch)
	}
}

// endWatches ends every watch of a deleted event.
func (e *event) endWatches(at time.Time) {
	end := func(sub *subscriber) {
		sub.deleted, sub.deletedAt = true, at
		close(sub.ch)
	}
	for sub := range e.all {
		end(sub)
	}
	for _, m := range e.byKey {
		for sub := range m {
			end(sub)
		}
	}
	clear(e.all)
	clear(e.byKey)
}
