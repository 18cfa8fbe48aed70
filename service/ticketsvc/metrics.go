package ticketsvc

import (
	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the matchmaker's Prometheus series. Labels are queue names
// (from configuration, so bounded), never ticket or player ids.
type metrics struct {
	tickets     *prometheus.CounterVec   // transitions into each state
	waiting     *prometheus.GaugeVec     // tickets waiting per queue
	pools       *prometheus.GaugeVec     // pools (live queue keys) per queue
	matches     *prometheus.CounterVec   // matches committed
	timeToMatch *prometheus.HistogramVec // wait of each matched ticket
	quality     *prometheus.HistogramVec // quality score of each match
	qualityPart *prometheus.HistogramVec // per-criterion quality parts
	intakeBatch prometheus.Histogram     // tickets per durable intake batch
	passSeconds *prometheus.HistogramVec // time of one engine step
	watchers    prometheus.GaugeFunc
	takeovers   *prometheus.CounterVec // queues this node took over (cluster.go)
	readyChecks *prometheus.CounterVec // ready checks by outcome (package handoff)
}

func newMetrics(reg prometheus.Registerer, watchers func() float64) *metrics {
	m := &metrics{
		tickets: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cupid_tickets_total",
			Help: "Tickets that entered each state (waiting on creation, then matched, cancelled or expired).",
		}, []string{"queue", "state"}),
		waiting: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "cupid_waiting_tickets",
			Help: "Tickets waiting in each queue, over all its pools.",
		}, []string{"queue"}),
		takeovers: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cupid_queue_takeovers_total",
			Help: "Times this node took a queue's pools over under a lease (several nodes on one database).",
		}, []string{"queue"}),
		pools: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "cupid_pools",
			Help: "Pools (live queue keys: version and custom key pairs) of each queue.",
		}, []string{"queue"}),
		matches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cupid_matches_total",
			Help: "Matches committed.",
		}, []string{"queue"}),
		timeToMatch: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "cupid_time_to_match_seconds",
			Help:    "How long matched tickets waited.",
			Buckets: []float64{0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600},
		}, []string{"queue"}),
		quality: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "cupid_match_quality",
			Help:    "Quality score of committed matches, 0 (bad) to 1 (ideal).",
			Buckets: prometheus.LinearBuckets(0.1, 0.1, 10),
		}, []string{"queue"}),
		qualityPart: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "cupid_match_quality_part",
			Help:    "Per-criterion quality of committed matches.",
			Buckets: prometheus.LinearBuckets(0.1, 0.1, 10),
		}, []string{"queue", "criterion"}),
		intakeBatch: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "cupid_intake_batch_tickets",
			Help:    "Tickets made durable per store transaction (group commit).",
			Buckets: prometheus.ExponentialBuckets(1, 2, 12),
		}),
		passSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "cupid_engine_step_seconds",
			Help:    "Time of one engine step over a pool.",
			Buckets: prometheus.ExponentialBuckets(0.00001, 4, 10),
		}, []string{"queue"}),
		watchers: prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "cupid_ticket_watchers",
			Help: "Open ticket watch streams and sockets.",
		}, watchers),
	}
	if reg != nil {
		reg.MustRegister(m.tickets, m.waiting, m.pools, m.matches, m.timeToMatch, m.quality, m.qualityPart, m.intakeBatch, m.passSeconds, m.watchers, m.takeovers)
	}
	m.readyChecks = newReadyCheckMetric(reg)
	return m
}

// newReadyCheckMetric counts the answers and outcomes of ready checks
// (package handoff counts them; the series is the service's).
func newReadyCheckMetric(reg prometheus.Registerer) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "cupid_ready_checks_total",
		Help: "Ready checks of matches by outcome: accepted (every player accepted), declined, timed_out.",
	}, []string{"queue", "outcome"})
	if reg != nil {
		reg.MustRegister(c)
	}
	return c
}
