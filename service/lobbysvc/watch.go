package lobbysvc

import (
	"context"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/lobby"
)

// Watch calls send with a lobby's events after afterSeq, each with the
// lobby as it is when it is sent, until the lobby starts or closes (then
// nil, after that final event), ctx ends, send fails or the lobbies stop
// running on this node (unavailable: watch again, after the last seq seen).
// A watcher further behind than the events a lobby keeps (64) first gets
// the oldest kept; its seq tells what was missed. With afterSeq 0 a
// watcher starts from a "watching" message carrying the lobby as it is.
func (s *Service) Watch(ctx context.Context, lobbyID string, afterSeq int64, send func(lobby.Event, *View) error) error {
	if afterSeq < 0 {
		return cupid.Invalid("after_seq", "must not be negative, got %d", afterSeq)
	}
	e, err := s.lookup(ctx, "lobby_id", lobbyID)
	if err != nil {
		return err
	}
	epoch, _ := s.running()
	first := true
	for {
		e.mu.Lock()
		l, changed := e.lobby, e.changed
		var evs []lobby.Event
		for _, ev := range e.history {
			if ev.Seq > afterSeq {
				evs = append(evs, ev)
			}
		}
		e.mu.Unlock()
		v := viewOf(l)
		if first && afterSeq == 0 && len(evs) > 0 {
			// A new watcher hears the lobby as it is, then the news.
			if err := send(lobby.Event{Seq: l.Seq, Kind: KindWatching, At: l.UpdatedAt}, v); err != nil {
				return err
			}
			afterSeq, evs = l.Seq, nil
		}
		first = false
		for _, ev := range evs {
			if err := send(ev, v); err != nil {
				return err
			}
			afterSeq = ev.Seq
			if ev.Kind.Final() {
				return nil
			}
		}
		if l.State.Final() && afterSeq >= l.Seq {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		case <-epoch.Done():
			return errShuttingDown
		}
	}
}

// KindWatching is the first message of a watch from the start: the lobby
// as it is, at its last seq.
const KindWatching lobby.EventKind = "watching"
