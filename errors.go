package cupid

import (
	"errors"
	"fmt"
)

// Code classifies an error so each transport can map it to its own status
// (Connect codes, HTTP statuses, CLI exit codes) without string matching.
type Code string

// The error codes the domain uses.
const (
	CodeInvalid  Code = "invalid"
	CodeNotFound Code = "not_found"
	CodeConflict Code = "conflict"
	// CodeAlreadyExists refuses to create what exists already (a second
	// live ticket for a player in one queue).
	CodeAlreadyExists Code = "already_exists"
	// CodeExhausted refuses work past a configured limit (live queue keys,
	// watchers); the caller may try again later.
	CodeExhausted   Code = "resource_exhausted"
	CodeUnavailable Code = "unavailable"
	CodeTooLarge    Code = "too_large"
	CodeUnauth      Code = "unauthenticated"
	CodeDenied      Code = "permission_denied"
	CodeInternal    Code = "internal"
)

// Error is the project's error: a code, the field it concerns (a JSON-ish
// path such as "players[1].attributes.mmr", or empty) and a message for
// people.
type Error struct {
	Code    Code
	Field   string
	Message string
	// ResumeAfter, on CodeOutOfRange, is the sequence number a reader
	// whose events retention removed resumes after.
	ResumeAfter int64
}

func (e *Error) Error() string {
	if e.Field != "" {
		return e.Field + ": " + e.Message
	}
	return e.Message
}

// Errorf builds an *Error.
func Errorf(code Code, field, format string, args ...any) *Error {
	return &Error{Code: code, Field: field, Message: fmt.Sprintf(format, args...)}
}

// Invalid is shorthand for an invalid-argument error on a field.
func Invalid(field, format string, args ...any) *Error {
	return Errorf(CodeInvalid, field, format, args...)
}

// NotFound is shorthand for a missing-thing error.
func NotFound(field, format string, args ...any) *Error {
	return Errorf(CodeNotFound, field, format, args...)
}

// Conflict is shorthand for a state conflict.
func Conflict(field, format string, args ...any) *Error {
	return Errorf(CodeConflict, field, format, args...)
}

// ErrorCode returns err's code, or CodeInternal when err is not an *Error.
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// Within returns err with its field placed under prefix, for an error about
// one item of a batch: Within("tickets[3]", err on "players[0].id") is about
// "tickets[3].players[0].id". Errors that are not *Error pass unchanged.
func Within(prefix string, err error) error {
	var e *Error
	if prefix == "" || !errors.As(err, &e) {
		return err
	}
	c := *e
	c.Field = prefix
	if e.Field != "" {
		c.Field = prefix + "." + e.Field
	}
	return &c
}
