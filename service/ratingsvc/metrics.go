package ratingsvc

import "github.com/prometheus/client_golang/prometheus"

type metrics struct {
	results     *prometheus.CounterVec // by rating and outcome (rated, repeated)
	updates     *prometheus.CounterVec // by rating
	flags       *prometheus.CounterVec // by rating and flag (tanking, smurf, streak)
	lowPriority *prometheus.CounterVec // tickets routed, by queue and reason
	retries     *prometheus.CounterVec // results worked out again, by rating
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		results: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cupid_rating_results_total",
			Help: "Match results reported, by rating and outcome (rated, repeated)."}, []string{"rating", "outcome"}),
		updates: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cupid_rating_updates_total",
			Help: "Player ratings updated from results, by rating."}, []string{"rating"}),
		flags: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cupid_rating_flags_raised_total",
			Help: "Fair-play flags raised (a player not flagged before), by rating and flag."}, []string{"rating", "flag"}),
		lowPriority: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cupid_rating_routed_tickets_total",
			Help: "Tickets routed to a pool of their own, by queue and reason (low-priority, fair-play)."}, []string{"queue", "reason"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cupid_rating_result_retries_total",
			Help: "Results worked out again because another server changed a player's rating (or a count) meanwhile, by rating."}, []string{"rating"}),
	}
	if reg != nil {
		reg.MustRegister(m.results, m.updates, m.flags, m.lowPriority, m.retries)
	}
	return m
}
