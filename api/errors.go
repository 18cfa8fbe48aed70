package api

import (
	"context"
	"errors"
	"log/slog"
	"strconv"

	"connectrpc.com/connect"

	cupid "github.com/cupid-match/cupid"
)

// connectError maps the domain's error codes to Connect codes. The message
// keeps the field path ("players[1].attributes.mmr: must be a finite
// number"), so a caller learns what to fix. Anything that is not a domain
// error is an internal failure: it is logged and the caller gets no details.
func connectError(log *slog.Logger, err error) error {
	if err == nil {
		return nil
	}
	var ce *connect.Error
	if errors.As(err, &ce) {
		return ce
	}
	if errors.Is(err, context.Canceled) {
		return connect.NewError(connect.CodeCanceled, err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return connect.NewError(connect.CodeDeadlineExceeded, err)
	}
	var e *cupid.Error
	if !errors.As(err, &e) {
		log.Error("internal error", "err", err)
		return connect.NewError(connect.CodeInternal, errors.New("internal error"))
	}
	out := connect.NewError(codeOf(e.Code), e)
	if e.Field != "" {
		out.Meta().Set("Cupid-Field", e.Field)
	}
	if e.Code == cupid.CodeOutOfRange {
		out.Meta().Set(ResumeAfterHeader, strconv.FormatInt(e.ResumeAfter, 10))
	}
	return out
}

// ResumeAfterHeader carries, on an out_of_range error (a resume from a
// sequence number whose events retention removed), the sequence number to
// resume after.
const ResumeAfterHeader = "Cupid-Resume-After"

func codeOf(c cupid.Code) connect.Code {
	switch c {
	case cupid.CodeInvalid:
		return connect.CodeInvalidArgument
	case cupid.CodeNotFound:
		return connect.CodeNotFound
	case cupid.CodeConflict:
		return connect.CodeFailedPrecondition
	case cupid.CodeAlreadyExists:
		return connect.CodeAlreadyExists
	case cupid.CodeExhausted:
		return connect.CodeResourceExhausted
	case cupid.CodeUnavailable:
		return connect.CodeUnavailable
	case cupid.CodeTooLarge:
		return connect.CodeResourceExhausted
	case cupid.CodeUnauth:
		return connect.CodeUnauthenticated
	case cupid.CodeDenied:
		return connect.CodePermissionDenied
	case cupid.CodeOutOfRange:
		return connect.CodeOutOfRange
	}
	return connect.CodeInternal
}
