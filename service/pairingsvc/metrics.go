package pairingsvc

import "github.com/prometheus/client_golang/prometheus"

// metrics are the service's Prometheus series. None has an event label:
// event ids are chosen by callers and unbounded.
type metrics struct {
	events       prometheus.Gauge     // events running
	rounds       prometheus.Counter   // rounds started
	pairs        prometheus.Histogram // pairs seated per round
	roundSeconds prometheus.Histogram // time to compute a round
	lobby        prometheus.Gauge     // participants waiting in lobbies, all events
	watchers     prometheus.Gauge     // open watches
	storeErrors  prometheus.Counter   // failed writes to the store
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		events: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "cupid_pairing_events",
			Help: "Speed-dating events running on this server.",
		}),
		rounds: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "cupid_pairing_rounds_total",
			Help: "Speed-dating rounds started.",
		}),
		pairs: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "cupid_pairing_round_pairs",
			Help:    "Pairs seated in each round.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 16),
		}),
		roundSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "cupid_pairing_round_compute_seconds",
			Help:    "Time to compute a round (the matching, rooms and notifications), before it is stored.",
			Buckets: prometheus.ExponentialBuckets(0.00005, 4, 10),
		}),
		lobby: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "cupid_pairing_lobby_participants",
			Help: "Participants waiting in the lobbies of all events.",
		}),
		watchers: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "cupid_pairing_watchers",
			Help: "Open watches of events (streams and WebSockets).",
		}),
		storeErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "cupid_pairing_store_errors_total",
			Help: "Writes of events to the store that failed (the change was undone).",
		}),
	}
	if reg != nil {
		reg.MustRegister(m.events, m.rounds, m.pairs, m.roundSeconds, m.lobby, m.watchers, m.storeErrors)
	}
	return m
}

// observe records the rounds of a stored change.
func (m *metrics) observe(rounds []roundStat) {
	for _, r := range rounds {
		m.rounds.Inc()
		m.pairs.Observe(float64(r.pairs))
		m.roundSeconds.Observe(r.seconds)
	}
}
