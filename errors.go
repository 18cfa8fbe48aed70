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
	CodeInvalid     Code = "invalid"
	CodeNotFound    Code = "not_found"
	CodeConflict    Code = "conflict"
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
