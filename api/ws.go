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
	"google.golang.org/protobuf/proto"

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
	after, err := afterSeqParam(r)
	if err != nil {
		httpError(w, err)
		return
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
	err = watch(ctx, id, after, func(ev cupid.Event) error { return sendJSON(ctx, c, ticketEventOut(ev)) })
	closeWatch(c, err, "final event sent")
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

// afterSeqParam reads a socket's after_seq query parameter (0 when absent).
func afterSeqParam(r *http.Request) (int64, error) {
	v := r.URL.Query().Get("after_seq")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, cupid.Invalid("after_seq", "must be a non-negative integer, got %q", v)
	}
	return n, nil
}

// sendJSON writes one message on a socket as a JSON text message (the
// Connect JSON form), giving a slow reader ten seconds.
func sendJSON(ctx context.Context, c *websocket.Conn, m proto.Message) error {
	b, err := protojson.Marshal(m)
	if err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return c.Write(wctx, websocket.MessageText, b)
}

// closeWatch closes a socket as its watch ended: normally, with done as
// the reason, when the watch came to its end; at once when the client went
// away; otherwise "try again later" with the error, so the client
// reconnects with the last seq it saw.
func closeWatch(c *websocket.Conn, err error, done string) {
	switch {
	case err == nil:
		c.Close(websocket.StatusNormalClosure, done)
	case errors.Is(err, context.Canceled):
		c.CloseNow()
	default:
		c.Close(websocket.StatusTryAgainLater, truncate(err.Error(), 100))
	}
}
