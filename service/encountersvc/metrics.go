package encountersvc

import "github.com/prometheus/client_golang/prometheus"

type metrics struct {
	recorded *prometheus.CounterVec // encounters written, by mode
	lists    *prometheus.CounterVec // list changes, by kind and op
	erased   prometheus.Counter
	filled   *prometheus.CounterVec // tickets filled at intake, by queue
	lag      *prometheus.GaugeVec   // match events seen but not yet recorded, by queue
	// rematches counts rematch changes, by the state they led to.
	rematches *prometheus.CounterVec
	// reports counts reports taken, lowPriority the players they marked,
	// by reason.
	reports, lowPriority *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		recorded: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cupid_encounters_recorded_total",
			Help: "Encounters written to the history (two per pair of players who met), by mode (queue, opponent, pairing)."}, []string{"mode"}),
		lists: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cupid_encounter_list_changes_total",
			Help: "Block and avoid list changes, by kind (block, avoid) and op (put, remove)."}, []string{"kind", "op"}),
		erased: prometheus.NewCounter(prometheus.CounterOpts{Name: "cupid_encounter_erasures_total",
			Help: "Players whose encounter history was erased."}),
		filled: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cupid_encounter_tickets_filled_total",
			Help: "Tickets whose players' blocked, avoided and met lists were filled at intake, by queue."}, []string{"queue"}),
		lag: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "cupid_encounter_follow_pending",
			Help: "Matches heard of but not yet recorded in the history, by queue."}, []string{"queue"}),
		rematches: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cupid_encounter_rematches_total",
			Help: "Rematches asked (pending) and answered (accepted, declined), by the state they led to."}, []string{"state"}),
		reports: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cupid_encounter_reports_total",
			Help: "Player reports taken, by reason."}, []string{"reason"}),
		lowPriority: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cupid_encounter_report_low_priority_total",
			Help: "Players marked low priority because their reports for a reason reached its threshold, by reason."}, []string{"reason"}),
	}
	if reg != nil {
		reg.MustRegister(m.recorded, m.lists, m.erased, m.filled, m.lag, m.rematches, m.reports, m.lowPriority)
	}
	return m
}
