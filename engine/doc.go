// Package engine is a matchmaking pool's state machine: the tickets waiting
// under one queue key and the rules that turn them into matches. It is pure —
// no I/O, no goroutines, no clock: time comes in as an argument — so the
// server, the simulator and the tests replay every decision exactly.
//
// # Driving a pool
//
// The server keeps one Pool per cupid.QueueKey on one goroutine:
//
//	p, err := engine.New(key, compiled, engine.Options{})
//	err = p.Check(t)          // before storing: could this ticket ever match here?
//	err = p.Add(t)            // after storing; t.CreatedAt is the age origin
//	props := p.Step(now)      // matches formed; their tickets left the pool
//	m := props[i].Match()     // one to commit, built on demand
//	p.Return(props[i].Tickets()) // the commit failed: back in, age kept
//	wake, ok := p.NextWake(now) // sleep until then, or until a ticket arrives
//	p.Remove(id)              // cancelled or expired
//	x, ok := p.Explain(id, now) // "why am I still waiting?"
//	evicted, err := p.SetRuleset(compiled2)
//	err = p.OpenSession(s)    // a running game with free seats: Step fills it first
//	p.CloseSession(s.ID)      // full, closed or over
//
// Step is event-driven: it tries the tickets that have something new (new or
// returned tickets, tickets that just passed a relaxation step, older tickets
// whose window a newcomer fell into), oldest first, and never re-tries a
// ticket that failed and has nothing new. There is no matching interval:
// NextWake names the next moment a relaxation step could let a match form.
//
// # Choices this package makes (and documents where they are made)
//
//   - Whose wait flexes the rules: the anchor's (the pivot of AccelByte's rulesets). A match is
//     judged at the flex level of the ticket it is built around — the oldest
//     ticket that can anchor one, since anchors are tried oldest first. Each
//     level is at least as permissive as the one before (flex.go), so
//     relaxation never tightens for a ticket.
//   - Distance rules measure each ticket's value (a party's players'
//     average) from the anchor's, so a match may span twice the reference;
//     the "spread" criteria bounds the whole match instead. Normalisation by
//     max (or the reference) and the rule weight apply to balancing and to
//     the quality score.
//   - Region latency is bidirectional: the candidate must have expanded to
//     the region by its own wait, until the anchor is older than
//     disable_bidirectional_latency_after_ms (latency.go).
//   - Teams: parties are never split and never exceed a team; a full match
//     (max teams of max players) is preferred, a smaller one is formed only
//     when the anchor's flexed alliance allows it (anchor.go); teams are
//     balanced exactly up to Options.ExactTeamSize players per team
//     (balance.go).
//   - Match options: "all" needs the same set of values (an unset option
//     matches only unset); "any" needs every ticket to carry the option and
//     all of them to share at least one value (a ticket without it matches
//     nobody, so Check refuses it); "unique" needs every player to have a value no
//     other player has.
//   - Comparisons between tickets: "=" holds across the whole match (same
//     game_version), "!=" across teams (clanmates never face each other).
//   - Attribute defaults are given to a ticket's players before Check and
//     Add read it (defaults.go); the caller's ticket is never modified.
//   - Rules the ruleset compiles to filters (team_sizes, counting
//     collection rules, compound rules) are judged like any filter; a
//     count with a maximum over the match and the latency spread are also
//     kept while a group is built (group.go), so a candidate that would
//     break them is left out and a smaller match can still form. Match
//     filters and minimum counts are judged only on a finished group: the
//     largest group found is the one tried.
//   - Named teams (ruleset "teams") each have their own size and keep their
//     order in every match; a candidate joins a group only if every ticket
//     can still go to a team whose team_comparison rules it passes, with
//     seats for all; rules aimed at a team are judged on each split like
//     team rules (named.go).
//   - client_version: the server splits pools by it, putting it in
//     QueueKey.Version; Check refuses a ticket whose client_version differs
//     from its pool's version.
//   - A ticket that could never match (party larger than any team, an
//     attribute a rule needs missing or not finite, every region above the
//     latency cap, a gate it fails even fully relaxed, a role the queue does
//     not have) is refused by Check with the field at fault, rather than
//     left waiting forever.
//
// Every proposal carries a quality score (quality.go); its Match carries the
// hosting region and each player's role in Match.Region and Match.Roles.
//
// sim.RunScenario runs scenarios (a ruleset and tickets over virtual time)
// through Pools and reports matches and waits; it is the kit behind "cupid
// ruleset try", and the engine's golden scenarios (subpackage enginetest)
// run on it.
package engine
