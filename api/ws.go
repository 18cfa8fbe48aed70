package api

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"
	"google.golang.org/protobuf/encoding/protojson"

	cupid "github.com/cupid-match/cupid"
)

// watchSocket serves GET /v1/tickets/{id}/ws?after_seq=N: the same events
// as WatchTicket, as JSON text messages (the Connect JSON form of
// TicketEvent), for game clients that cannot speak gRPC. The server closes
// the socket normally after the final event; on any other close the client
// reconnects with the last seq it saw. With wait_for_assignment=true the
// stream goes on past matched until the match is assigned (see
// WatchTicketRequest).
func (s *server) watchSocket(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var after int64
	if v := r.URL.Query().Get("after_seq"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			httpError(w, cupid.Invalid("after_seq", "must be a non-negative integer, got %q", v))
			return
		}
		after = n
	}
	watch := s.mm.Watch
	switch v := r.URL.Query().Get("wait_for_assignment"); v {
	case "", "false":
	case "true":
		watch = s.mm.WatchAssignment
	default:
		httpError(w, cupid.Invalid("wait_for_assignment", "must be true or false, got %q", v))
		return
	}
	// Fail before the upgrade when the ticket does not exist, so the client
	// gets a plain HTTP error it can read.
	if _, err := s.mm.GetTicket(r.Context(), id); err != nil {
		httpError(w, err)
		return
	}
	release, err := s.watchers.acquire(id)
	if err != nil {
		httpError(w, err)
		return
	}
	defer release()
	c, ctx, ok := acceptSocket(w, r, s.origins)
	if !ok {
		return
	}
	marshal := protojson.MarshalOptions{UseProtoNames: false}
	err = watch(ctx, id, after, func(ev cupid.Event) error {
		b, err := marshal.Marshal(ticketEventOut(ev))
		if err != nil {
			return err
		}
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		return c.Write(wctx, websocket.MessageText, b)
	})
	if err == nil {
		c.Close(websocket.StatusNormalClosure, "final event sent")
		return
	}
	if errors.Is(err, context.Canceled) {
		c.CloseNow()
		return
	}
	c.Close(websocket.StatusTryAgainLater, truncate(err.Error(), 100))
}

// truncate cuts s to at most n bytes on a character boundary: a WebSocket
// close reason must be valid UTF-8, or browsers report an abnormal close.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
