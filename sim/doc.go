// Package sim is Cupid's one virtual-time simulator: it drives the real
// engine.Pool with no service, store or HTTP between, time jumping from one
// event to the next (an arrival, a departure, a return after a match, a
// pool's NextWake), the pools stepping after each moment's events as the
// server's pool goroutines step after each batch (simulate, in run.go).
//
// Two kinds of runs share that loop. A day of players ("cupid sim": a
// Population, or traffic recorded from a store) goes through each ruleset
// and the FIFO and greedy baselines, and a recorder sums it up into a
// Report of waits, skill gaps, pings and qualities (report.go, html.go). A
// Scenario ("cupid ruleset try", the dashboard's try page, the engine's
// golden scenarios in engine/enginetest) is a handful of described tickets,
// and its report lists every match and explains every ticket still waiting
// (scenario.go, scenario_report.go).
package sim
