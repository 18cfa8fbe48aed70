package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"connectrpc.com/connect"

	cupid "github.com/cupid-match/cupid"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
)

// domainCodes is every cupid.Code and the Connect code it must become.
var domainCodes = []struct {
	code cupid.Code
	want connect.Code
}{
	{cupid.CodeInvalid, connect.CodeInvalidArgument},
	{cupid.CodeNotFound, connect.CodeNotFound},
	{cupid.CodeConflict, connect.CodeFailedPrecondition},
	{cupid.CodeAlreadyExists, connect.CodeAlreadyExists},
	{cupid.CodeExhausted, connect.CodeResourceExhausted},
	{cupid.CodeUnavailable, connect.CodeUnavailable},
	{cupid.CodeTooLarge, connect.CodeResourceExhausted},
	{cupid.CodeUnauth, connect.CodeUnauthenticated},
	{cupid.CodeDenied, connect.CodePermissionDenied},
	{cupid.CodeInternal, connect.CodeInternal},
	{cupid.Code("no such code"), connect.CodeInternal},
}

func TestCodeOfMapsEveryDomainCode(t *testing.T) {
	for _, c := range domainCodes {
		if got := codeOf(c.code); got != c.want {
			t.Errorf("codeOf(%q) = %s, want %s", c.code, got, c.want)
		}
	}
}

func TestConnectErrorKeepsCodeFieldAndMessage(t *testing.T) {
	for _, c := range domainCodes {
		if c.code == cupid.CodeInternal || c.want == connect.CodeInternal {
			continue // a domain error of no known code: below
		}
		t.Run(string(c.code), func(t *testing.T) {
			log, logged := captureLog()
			in := cupid.Errorf(c.code, "players[1].attributes.mmr", "must be a finite number, got %v", "NaN")
			// Wrapping must not hide the domain error.
			err := connectError(log, fmt.Errorf("ticketsvc: %w", in))
			ce := wantConnectErr(t, err, c.want, "players[1].attributes.mmr")
			if want := "players[1].attributes.mmr: must be a finite number, got NaN"; ce.Message() != want {
				t.Fatalf("message %q, want %q", ce.Message(), want)
			}
			if logged.Len() != 0 {
				t.Fatalf("a domain error was logged as internal: %s", logged)
			}
		})
	}
	t.Run("no field", func(t *testing.T) {
		ce := wantConnectErr(t, connectError(slog.New(slog.DiscardHandler), cupid.Errorf(cupid.CodeUnavailable, "", "the store failed; try again")),
			connect.CodeUnavailable, "")
		if _, set := ce.Meta()["Cupid-Field"]; set {
			t.Fatalf("Cupid-Field set for an error without a field: %v", ce.Meta())
		}
		if ce.Message() != "the store failed; try again" {
			t.Fatalf("message %q", ce.Message())
		}
	})
}

func TestConnectErrorHidesInternalErrors(t *testing.T) {
	for _, err := range []error{
		errors.New("sqlite: disk I/O error at /var/lib/cupid/cupid.db"),
		fmt.Errorf("wrapped: %w", errors.New("secret detail")),
	} {
		log, logged := captureLog()
		got := connectError(log, err)
		ce := wantConnectErr(t, got, connect.CodeInternal, "")
		if ce.Message() != "internal error" || len(ce.Details()) != 0 {
			t.Fatalf("%v became %q with %d details, want a bare \"internal error\"", err, ce.Message(), len(ce.Details()))
		}
		if strings.Contains(ce.Error(), "secret") || strings.Contains(ce.Error(), "sqlite") {
			t.Fatalf("the internal error leaks: %v", ce)
		}
		if !strings.Contains(logged.String(), "internal error") {
			t.Fatalf("a non-domain error was not logged: %q", logged)
		}
	}
}

func TestConnectErrorPassesContextAndConnectErrors(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	if connectError(log, nil) != nil {
		t.Fatal("nil became an error")
	}
	for _, c := range []struct {
		err  error
		want connect.Code
	}{
		{context.Canceled, connect.CodeCanceled},
		{fmt.Errorf("watch: %w", context.Canceled), connect.CodeCanceled},
		{context.DeadlineExceeded, connect.CodeDeadlineExceeded},
		{connect.NewError(connect.CodeAborted, errors.New("as is")), connect.CodeAborted},
	} {
		if got := connect.CodeOf(connectError(log, c.err)); got != c.want {
			t.Errorf("connectError(%v) is %s, want %s", c.err, got, c.want)
		}
	}
}

// TestErrorsOverTheWire checks that what connectError builds reaches each
// protocol's client: the code, the message with the field path, and the
// field in the Cupid-Field header (or trailer).
func TestErrorsOverTheWire(t *testing.T) {
	e := newEnv(t, envOptions{})
	for name, c := range e.clients() {
		t.Run(name, func(t *testing.T) {
			_, err := c.GetTicket(context.Background(), connect.NewRequest(&cupidv1.GetTicketRequest{Id: "nope"}))
			ce := wantConnectErr(t, err, connect.CodeNotFound, "id")
			if !strings.Contains(ce.Message(), `"nope"`) {
				t.Fatalf("message %q does not name the ticket", ce.Message())
			}
		})
	}
	// Connect's JSON protocol as curl sees it: the field as a header.
	r := e.post("GetTicket", `{"id":"nope"}`)
	r.refused(t, connect.CodeNotFound, `id: no ticket "nope"`)
	if r.status != http.StatusNotFound || r.header.Get("Cupid-Field") != "id" {
		t.Fatalf("status %d, Cupid-Field %q; want 404 and \"id\"", r.status, r.header.Get("Cupid-Field"))
	}
}

// TestHTTPErrorAnswersEveryCode covers the plain-HTTP error of the
// WebSocket endpoints: a JSON body in Connect's shape and a status that is
// a real HTTP status for every domain code.
func TestHTTPErrorAnswersEveryCode(t *testing.T) {
	status := map[connect.Code]int{
		connect.CodeInvalidArgument:    http.StatusBadRequest,
		connect.CodeNotFound:           http.StatusNotFound,
		connect.CodeFailedPrecondition: http.StatusConflict,
		connect.CodeAlreadyExists:      http.StatusConflict,
		connect.CodeUnavailable:        http.StatusServiceUnavailable,
		connect.CodeUnauthenticated:    http.StatusUnauthorized,
		connect.CodePermissionDenied:   http.StatusForbidden,
		connect.CodeInternal:           http.StatusInternalServerError,
	}
	for _, c := range domainCodes {
		t.Run(string(c.code), func(t *testing.T) {
			w := httptest.NewRecorder()
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("httpError panicked: %v", p)
					}
				}()
				httpError(w, cupid.Errorf(c.code, "after_seq", "bad"))
			}()
			var body map[string]string
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
				t.Fatalf("body %q: %v", w.Body, err)
			}
			if body["code"] != c.want.String() {
				t.Fatalf("code %q, want %q", body["code"], c.want)
			}
			if c.want == connect.CodeInternal {
				if body["message"] != "internal error" && body["message"] != "after_seq: bad" {
					t.Fatalf("message %q", body["message"])
				}
			} else if body["message"] != "after_seq: bad" {
				t.Fatalf("message %q, want the field and the message", body["message"])
			}
			if w.Code < 400 || w.Code > 599 {
				t.Fatalf("status %d for %s", w.Code, c.want)
			}
			if want, ok := status[c.want]; ok && w.Code != want {
				t.Fatalf("status %d, want %d", w.Code, want)
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/json" {
				t.Fatalf("Content-Type %q", ct)
			}
		})
	}
	w := httptest.NewRecorder()
	httpError(w, errors.New("secret detail"))
	if w.Code != http.StatusInternalServerError || strings.Contains(w.Body.String(), "secret") {
		t.Fatalf("a non-domain error answered %d %q, want 500 without details", w.Code, w.Body)
	}
}

// captureLog returns a logger writing to a buffer.
func captureLog() (*slog.Logger, *bytes.Buffer) {
	var b bytes.Buffer
	return slog.New(slog.NewTextHandler(&b, nil)), &b
}

func TestTruncateKeepsUTF8(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdef", 3, "abc"},
		{"aé", 2, "a"},
		{"éé", 3, "é"},
		{"日本語", 5, "日"},
		{"日本語", 6, "日本"},
	} {
		if got := truncate(c.in, c.n); got != c.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}
