package opponentsvc

import (
	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the finders' Prometheus series, labelled by finder name (from
// configuration, so bounded), never by player. Everything but the query
// time is read from the finders' own counters when Prometheus scrapes, so
// the query path pays for one histogram observation and nothing else.
type metrics struct {
	s            *Service
	querySeconds *prometheus.HistogramVec

	queries    *prometheus.Desc
	entries    *prometheus.Desc
	players    *prometheus.Desc
	capacity   *prometheus.Desc
	cacheSize  *prometheus.Desc
	buckets    *prometheus.Desc
	changes    *prometheus.Desc
	scanRows   *prometheus.Desc
	scanErrors *prometheus.Desc
	rebalances *prometheus.Desc
	reserved   *prometheus.Desc
	unavail    *prometheus.Desc
}

func newMetrics(s *Service) *metrics {
	finder := []string{"finder"}
	return &metrics{
		s: s,
		querySeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "cupid_opponent_query_seconds",
			Help:    "Time to answer one opponent query, lock included.",
			Buckets: prometheus.ExponentialBuckets(1e-6, 4, 10),
		}, finder),
		queries: prometheus.NewDesc("cupid_opponent_queries_total",
			"Opponent queries by result: success, none_found, fake_opponent or invalid.", []string{"finder", "result"}, nil),
		entries: prometheus.NewDesc("cupid_opponent_cache_entries",
			"Entries in the finder's cache.", finder, nil),
		players: prometheus.NewDesc("cupid_opponent_cache_players",
			"Distinct players in the finder's cache.", finder, nil),
		capacity: prometheus.NewDesc("cupid_opponent_cache_capacity",
			"Slots over all buckets; never above the cache size.", finder, nil),
		cacheSize: prometheus.NewDesc("cupid_opponent_cache_size",
			"The configured bound on the cache (player_cache_size).", finder, nil),
		buckets: prometheus.NewDesc("cupid_opponent_buckets",
			"Buckets in use.", finder, nil),
		changes: prometheus.NewDesc("cupid_opponent_entries_total",
			"Changes to cached entries: inserted, updated, removed, evicted, ignored, offer_removed.", []string{"finder", "change"}, nil),
		scanRows: prometheus.NewDesc("cupid_opponent_scan_rows_total",
			"Player table rows read by the scan: applied or rejected.", []string{"finder", "outcome"}, nil),
		scanErrors: prometheus.NewDesc("cupid_opponent_scan_errors_total",
			"Scan fetches that failed and were retried a tick later.", finder, nil),
		rebalances: prometheus.NewDesc("cupid_opponent_rebalances_total",
			"Sizing models made.", finder, nil),
		reserved: prometheus.NewDesc("cupid_opponent_reservations_total",
			"Reservations by what became of them: made, confirmed, released, expired.", []string{"finder", "outcome"}, nil),
		unavail: prometheus.NewDesc("cupid_opponent_unavailable_players",
			"Players who may not be offered now: held, shielded or online.", []string{"finder", "why"}, nil),
	}
}

// Describe implements prometheus.Collector.
func (m *metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{m.queries, m.entries, m.players, m.capacity, m.cacheSize,
		m.buckets, m.changes, m.scanRows, m.scanErrors, m.rebalances, m.reserved, m.unavail} {
		ch <- d
	}
}

// Collect implements prometheus.Collector, reading each finder's counters
// under its lock.
func (m *metrics) Collect(ch chan<- prometheus.Metric) {
	for _, name := range m.s.names {
		st, err := m.s.Stats(name, false)
		if err != nil {
			continue
		}
		counter := func(d *prometheus.Desc, v uint64, labels ...string) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), append([]string{name}, labels...)...)
		}
		gauge := func(d *prometheus.Desc, v int) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v), name)
		}
		counter(m.queries, st.Successes, "success")
		counter(m.queries, st.NoneFound, "none_found")
		counter(m.queries, st.Fakes, "fake_opponent")
		counter(m.queries, st.InvalidQueries, "invalid")
		gauge(m.entries, st.Entries)
		gauge(m.players, st.Players)
		gauge(m.capacity, st.Capacity)
		gauge(m.cacheSize, st.CacheSize)
		gauge(m.buckets, st.Buckets)
		counter(m.changes, st.Inserted, "inserted")
		counter(m.changes, st.Updated, "updated")
		counter(m.changes, st.Removed, "removed")
		counter(m.changes, st.Evicted, "evicted")
		counter(m.changes, st.Ignored, "ignored")
		counter(m.changes, st.OfferRemoved, "offer_removed")
		counter(m.scanRows, st.ScannedRows, "applied")
		counter(m.scanRows, st.ScanRejected, "rejected")
		counter(m.scanErrors, st.ScanErrors)
		counter(m.rebalances, st.Rebalances)
		counter(m.reserved, st.Reserved, "made")
		counter(m.reserved, st.Confirmed, "confirmed")
		counter(m.reserved, st.Released, "released")
		counter(m.reserved, st.Expired, "expired")
		for why, v := range map[string]int{"held": st.Held, "shielded": st.Shielded, "online": st.Online} {
			ch <- prometheus.MustNewConstMetric(m.unavail, prometheus.GaugeValue, float64(v), name, why)
		}
	}
}
