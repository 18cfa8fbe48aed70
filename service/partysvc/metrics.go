package partysvc

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/cupid-match/cupid/party"
)

// metrics are the service's Prometheus series; none has a party or player
// label (both unbounded).
type metrics struct {
	parties     prometheus.Gauge       // parties on this node
	members     prometheus.Gauge       // their members
	invites     prometheus.Gauge       // their pending invites
	queued      prometheus.Gauge       // parties with a waiting or matched ticket
	watchers    prometheus.Gauge       // open watches
	events      *prometheus.CounterVec // party events by kind
	storeErrors prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		parties:     prometheus.NewGauge(prometheus.GaugeOpts{Name: "cupid_parties", Help: "Parties on this server."}),
		members:     prometheus.NewGauge(prometheus.GaugeOpts{Name: "cupid_party_members", Help: "Members of the parties on this server."}),
		invites:     prometheus.NewGauge(prometheus.GaugeOpts{Name: "cupid_party_invites", Help: "Pending party invites."}),
		queued:      prometheus.NewGauge(prometheus.GaugeOpts{Name: "cupid_parties_queued", Help: "Parties whose ticket waits or is matched and not yet assigned."}),
		watchers:    prometheus.NewGauge(prometheus.GaugeOpts{Name: "cupid_party_watchers", Help: "Open watches of parties."}),
		events:      prometheus.NewCounterVec(prometheus.CounterOpts{Name: "cupid_party_events_total", Help: "Party events, by kind (joined, left, queued, matched …)."}, []string{"kind"}),
		storeErrors: prometheus.NewCounter(prometheus.CounterOpts{Name: "cupid_party_store_errors_total", Help: "Party changes refused because the store failed."}),
	}
	if reg != nil {
		reg.MustRegister(m.parties, m.members, m.invites, m.queued, m.watchers, m.events, m.storeErrors)
	}
	return m
}

// change moves the gauges from old to new (either may be nil or empty).
func (m *metrics) change(old, new *party.Party) {
	m.add(old, -1)
	m.add(new, 1)
}

func (m *metrics) add(p *party.Party, sign float64) {
	if p == nil || p.Gone() {
		return
	}
	m.parties.Add(sign)
	m.members.Add(sign * float64(len(p.Members)))
	m.invites.Add(sign * float64(len(p.Invites)))
	if p.Phase == party.Queued || p.Phase == party.Matched {
		m.queued.Add(sign)
	}
}

// reset zeroes the gauges of parties when the node stops running them.
func (m *metrics) reset() {
	m.parties.Set(0)
	m.members.Set(0)
	m.invites.Set(0)
	m.queued.Set(0)
}
