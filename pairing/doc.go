// Package pairing runs speed-dating events: people in a lobby are paired, a
// round at a time, with someone neither of them remembers meeting, and each
// pair gets a private room until the round's timer runs out (the VRChat
// speed-dating world).
//
// An Event is a pure state machine. Every call takes the current time and
// returns the notifications it caused — countdown started, round started,
// paired with someone in a room, sat out, partner left, round ended — as
// values for the server to fan out; NextDeadline says when to call Advance
// next. Randomness comes from a seed, and Snapshot/Restore round-trip the
// whole state through JSON, so an event replays exactly and survives a
// restart.
//
// How it behaves, and why:
//
//   - People are identified by a stable key (the VRChat world uses the display name),
//     so someone who crashes and rejoins is the same person with the same
//     record.
//   - Each person keeps their own record of whom they have met. Two people
//     may be paired only if neither record says they met, and pairing marks
//     both. ClearRecord empties one's own record; others still remember, so a
//     rematch needs both to clear (as in the VRChat world, where a player who rejoins
//     with a clean slate is still avoided by those who remember them).
//     Leaving the event keeps the record, as for a crash; clearing it is
//     explicit.
//   - Only people in the lobby are paired. When MinLobby people are there a
//     countdown starts; people arriving during it are included. When it ends
//     the round is computed: the largest possible number of pairs (a maximum
//     matching, not the world's greedy one), favouring people who sat out
//     recent rounds, then following a round-robin plan (see plan.go) so that
//     a steady group meets everyone in as few rounds as possible, with
//     seeded random tie-breaking.
//   - Rounds are synchronous: every pair starts and ends together, as at a
//     real speed-dating event, which is what lets the round-robin plan work.
//     When the round ends, everyone in a room is back in the lobby
//     automatically, so rounds flow on; a person takes a break with
//     LeaveLobby. People who enter the lobby during a round wait for the next.
//   - With fewer rooms than pairs, only as many pairs as rooms are seated,
//     those whose members sat out most first; the others sit out and get
//     priority next time.
//   - A person who leaves a room (LeaveLobby or Leave) frees it; the partner
//     is told and goes back to the lobby. If every room empties the round ends
//     early.
//
// Beyond the VRChat world's design (each in its own file):
//
//   - Modes (config.go, round.go): two-sided events pair only across two
//     sides, whose first side keeps its rooms; group events pair within or
//     across groups. Never lists (records.go) take pairs out too. Every
//     round is still a maximum matching of the pairs allowed.
//   - Trios (round.go, graph/matching's Trio): a leftover person joins a
//     pair they have both never met, when that costs no pair.
//   - Records by hand (records.go): meetings recorded by the organiser,
//     histories imported, one entry forgotten.
//   - The round history (history.go): every computed round is numbered and
//     announced with its record; the event lists which ones the server
//     keeps.
//   - Organiser controls (controls.go): settings changed while running, a
//     round started or ended at once, pause and resume.
//   - Dates and answers (answers.go): extensions both partners ask for, a
//     minimum length, and private "would meet again" answers of which only
//     the mutual ones are revealed, at a set time or on the organiser's
//     word.
package pairing
