package main

import (
	"net"
	"strings"
	"testing"
)

// TestLoadReportSaysWhatItMeasured: a run without watching reports no
// match counts (it did not look), and the other lines are as measured.
func TestLoadReportSaysWhatItMeasured(t *testing.T) {
	tests := []struct {
		name      string
		rep       loadReport
		want, not string
	}{
		{"watched", loadReport{Tickets: 10, Watched: true, Notified: 8, Unmatched: 2, IntakeSeconds: 1},
			"matched and notified: 8 (left waiting without a partner in range: 2)", "not watched"},
		{"not watched", loadReport{Tickets: 100000, IntakeSeconds: 1},
			"matched and notified: not watched (--watch=false)", "left waiting"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.rep.String()
			if !strings.Contains(s, tt.want) || strings.Contains(s, tt.not) {
				t.Fatalf("report:\n%s\nwant %q and no %q", s, tt.want, tt.not)
			}
		})
	}
}

// TestLoadFailsWhenNothingWasCreated: a load against an address where no
// server answers exits with an error naming the first failure, not with
// a report of zero tickets.
func TestLoadFailsWhenNothingWasCreated(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nobody listens there now
	out, err := run("load", "--target", "http://"+addr, "--tickets", "4", "--concurrency", "2", "--watch=false")
	if err == nil || !strings.Contains(err.Error(), "no ticket was created") {
		t.Fatalf("load against %s: %v\n%s", addr, err, out)
	}
}
