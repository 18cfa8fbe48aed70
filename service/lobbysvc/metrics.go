package lobbysvc

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/cupid-match/cupid/lobby"
)

// metrics are the service's Prometheus series; no lobby or player label
// (they are unbounded), only states, event kinds and outcomes.
type metrics struct {
	lobbies     *prometheus.GaugeVec   // lobbies held, by state
	events      *prometheus.CounterVec // lobby events, by kind
	starts      *prometheus.CounterVec // starts, by outcome
	storeErrors prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		lobbies: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "cupid_lobbies",
			Help: "Lobbies this node holds, by state (open, starting, started and closed ones kept for reading).",
		}, []string{"state"}),
		events: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cupid_lobby_events_total",
			Help: "Lobby events, by kind (created, joined, left, kicked, started …).",
		}, []string{"kind"}),
		starts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cupid_lobby_starts_total",
			Help: "Lobby starts, by outcome: formed (a match), refused (a player in another live match …), failed (the store; retried).",
		}, []string{"outcome"}),
		storeErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "cupid_lobby_store_errors_total",
			Help: "Failed writes of lobbies to the store.",
		}),
	}
	if reg != nil {
		reg.MustRegister(m.lobbies, m.events, m.starts, m.storeErrors)
	}
	return m
}

// updateGauge counts the lobbies held by state.
func (s *Service) updateGauge() {
	counts := map[lobby.State]int{lobby.Open: 0, lobby.Starting: 0, lobby.Started: 0, lobby.Closed: 0}
	s.mu.Lock()
	for _, st := range s.states {
		counts[st]++
	}
	s.mu.Unlock()
	for st, n := range counts {
		s.metrics.lobbies.WithLabelValues(string(st)).Set(float64(n))
	}
}
