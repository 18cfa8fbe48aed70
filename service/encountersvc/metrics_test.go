package encountersvc

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/encounter"
	"github.com/cupid-match/cupid/internal/testclock"
	"github.com/cupid-match/cupid/memstore"
)

// TestMetricsCount: the documented metrics count what the service did,
// and only what it did (a refused call counts nothing).
func TestMetricsCount(t *testing.T) {
	ctx := context.Background()
	st := memstore.New()
	reg := prometheus.NewRegistry()
	var marked []string
	s, err := New(Options{Store: st, Docs: st, Registry: reg, Now: testclock.At(t0).Now, Logger: slog.New(slog.DiscardHandler),
		Queues:  []Queue{{Name: "duel"}},
		Reports: encounter.ReportRules{Thresholds: map[string]int{"cheating": 1}, Within: time.Hour},
		MarkLowPriority: func(_ context.Context, player, _ string) error {
			marked = append(marked, player)
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	steps := []error{
		s.Record(ctx, encounter.QueueMeeting("duel", "m1", t0, [][]string{{"a", "b"}, {"c"}})),
		s.RecordMeetings(ctx, []encounter.Meeting{{Mode: encounter.ModePairing, Place: "ev", Ref: "ev/1", At: t0, Teams: [][]string{{"d", "e"}}}}),
		s.Record(ctx, encounter.Meeting{Mode: encounter.ModeOpponent, Place: "raids", Ref: "r1", At: t0, Teams: [][]string{{"f"}, {"g"}}}),
		func() error { _, err := s.Put(ctx, "a", encounter.KindBlock, "x", 0); return err }(),
		func() error { _, err := s.Put(ctx, "a", encounter.KindAvoid, "y", 0.5); return err }(),
		s.Remove(ctx, "a", encounter.KindAvoid, "y"),
		s.Erase(ctx, "g"),
		s.PrepareTicket(ctx, &cupid.Ticket{Key: cupid.QueueKey{Queue: "duel"}, Players: []cupid.Player{{ID: "a"}}}),
		s.PrepareTicket(ctx, &cupid.Ticket{Key: cupid.QueueKey{Queue: "casual"}, Players: []cupid.Player{{ID: "a"}}}),
		func() error { _, err := s.ReportPlayer(ctx, "c", "a", "m1", "cheating", ""); return err }(),
	}
	for i, err := range steps {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	// Refused calls count nothing.
	refused := []error{
		s.Record(ctx, encounter.Meeting{Mode: "chess", Place: "p", Ref: "r", At: t0, Teams: [][]string{{"a"}, {"b"}}}),
		func() error { _, err := s.Put(ctx, "a", encounter.KindBlock, "a", 0); return err }(),
		s.Erase(ctx, ""),
		func() error { _, err := s.ReportPlayer(ctx, "c", "a", "m1", "rudeness", ""); return err }(),
	}
	for i, err := range refused {
		if cupid.ErrorCode(err) != cupid.CodeInvalid {
			t.Fatalf("refused call %d: %v", i, err)
		}
	}
	got := gather(t, reg)
	want := map[string]float64{
		"cupid_encounters_recorded_total,mode=queue":                6,
		"cupid_encounters_recorded_total,mode=pairing":              2,
		"cupid_encounters_recorded_total,mode=opponent":             2,
		"cupid_encounter_list_changes_total,kind=block,op=put":      1,
		"cupid_encounter_list_changes_total,kind=avoid,op=put":      1,
		"cupid_encounter_list_changes_total,kind=avoid,op=remove":   1,
		"cupid_encounter_erasures_total":                            1,
		"cupid_encounter_tickets_filled_total,queue=duel":           1,
		"cupid_encounter_reports_total,reason=cheating":             1,
		"cupid_encounter_report_low_priority_total,reason=cheating": 1,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok && v != 0 {
			t.Errorf("%s = %v, want nothing counted", k, v)
		}
	}
	if len(marked) != 1 || marked[0] != "a" {
		t.Errorf("marked %v", marked)
	}
}

// gather reads a registry's counters and gauges by name and labels.
func gather(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range families {
		for _, m := range mf.GetMetric() {
			key := mf.GetName()
			for _, l := range m.GetLabel() {
				key += "," + l.GetName() + "=" + l.GetValue()
			}
			switch {
			case m.GetCounter() != nil:
				got[key] = m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				got[key] = m.GetGauge().GetValue()
			}
		}
	}
	return got
}
