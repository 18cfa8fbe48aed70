package client

import (
	"context"
	"errors"
	"strconv"

	"connectrpc.com/connect"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// resumeAfterHeader is the metadata of an out_of_range error that names
// the sequence number to resume after (api.ResumeAfterHeader).
const resumeAfterHeader = "Cupid-Resume-After"

// PastHorizon reports whether err is the server's refusal of a resume
// from a sequence number whose events retention removed (out_of_range),
// and if so the sequence number to resume after: the events up to it are
// gone, the ones after it are kept. A backend that gets it re-reads the
// state it follows (ListMatches) and resumes from there, or lets
// WatchMatchesPastHorizon do it.
func PastHorizon(err error) (resumeAfter int64, ok bool) {
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeOutOfRange {
		return 0, false
	}
	n, perr := strconv.ParseInt(ce.Meta().Get(resumeAfterHeader), 10, 64)
	if perr != nil {
		return 0, false
	}
	return n, true
}

// WatchMatchesPastHorizon is WatchMatches for a backend that may resume
// from further back than the server keeps (it was down for longer than
// the match log's retention): when the server says the events after
// afterSeq were removed, it calls gap with the sequence number it will
// resume after — the moment to re-read the matches the backend follows —
// and goes on from there. gap's error ends the watch.
func (c *Client) WatchMatchesPastHorizon(ctx context.Context, queue string, afterSeq int64,
	gap func(ctx context.Context, resumeAfter int64) error, fn func(*cupidv1.MatchEvent) error) error {
	last := afterSeq
	track := func(ev *cupidv1.MatchEvent) error {
		if err := fn(ev); err != nil {
			return err
		}
		last = ev.GetSeq()
		return nil
	}
	for {
		err := c.WatchMatches(ctx, queue, last, track)
		h, ok := PastHorizon(err)
		if !ok {
			return err
		}
		if h <= last { // the server's horizon does not move us on: give up rather than loop
			return err
		}
		if err := gap(ctx, h); err != nil {
			return err
		}
		last = h
	}
}
