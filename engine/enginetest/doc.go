// Package enginetest holds the engine's golden scenarios: testdata/*.json,
// each a ruleset and tickets arriving over virtual time, and beside each the
// .golden report of what the engine made of it. The test plays them with
// the simulator's scenario runner (sim.RunScenario, the one virtual-time
// loop of the project, which "cupid ruleset try" runs too) and compares the
// text; go test ./engine/enginetest -update rewrites the reports after a
// deliberate change. The package has no code of its own: nothing outside
// tests imports it.
package enginetest
