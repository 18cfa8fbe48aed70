package storeerr

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	cupid "github.com/cupid-match/cupid"
)

func TestDomain(t *testing.T) {
	notFound := cupid.NotFound("ticket", "no ticket %q", "t1")
	tests := []struct {
		name string
		err  error
		// passes: the error is returned as it is; otherwise it becomes
		// unavailable.
		passes bool
		logged bool
	}{
		{name: "nil", err: nil, passes: true},
		{name: "domain error", err: notFound, passes: true},
		{name: "wrapped domain error", err: fmt.Errorf("store: %w", notFound), passes: true},
		{name: "cancelled", err: context.Canceled, passes: true},
		{name: "timed out", err: fmt.Errorf("query: %w", context.DeadlineExceeded), passes: true},
		{name: "store failure", err: errors.New("open /var/lib/cupid/db: disk full"), logged: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			got := Domain(slog.New(slog.NewTextHandler(&buf, nil)), tt.err)
			if tt.passes {
				if got != tt.err {
					t.Fatalf("Domain(%v) = %v, want it unchanged", tt.err, got)
				}
			} else {
				var e *cupid.Error
				if !errors.As(got, &e) || e.Code != cupid.CodeUnavailable {
					t.Fatalf("Domain(%v) = %v, want code %s", tt.err, got, cupid.CodeUnavailable)
				}
				if strings.Contains(got.Error(), "disk full") {
					t.Errorf("the store's words reached the caller: %v", got)
				}
			}
			if logged := strings.Contains(buf.String(), "the store failed"); logged != tt.logged {
				t.Errorf("logged = %v, want %v (log: %q)", logged, tt.logged, buf.String())
			}
		})
	}
}
