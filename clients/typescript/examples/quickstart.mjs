import { CupidClient, CupidError } from "@cupid-match/client";

// Two players queue in the demo's duel queue and are matched. A game
// client would queue only its own player, with its player token:
// new CupidClient(url, { playerToken }).
export async function quickstart(url) {
  const cupid = new CupidClient(url);
  const alice = await cupid.createTicket({ queue: "duel", players: [{ id: "alice", attributes: { mmr: 1500 } }] });
  await cupid.createTicket({ queue: "duel", players: [{ id: "bob", attributes: { mmr: 1540 } }] });

  // Resolves with the matched event (it reconnects by itself if the
  // connection drops); a ticket cancelled or expired rejects instead.
  const { match } = await cupid.waitForMatch(alice.id);
  console.log(`match ${match.id}:`, match.teams.map((team) => team.playerIds.join(" & ")).join(" vs "));

  // Refusals are CupidErrors naming the field at fault.
  try {
    await cupid.createTicket({ queue: "duel", players: [{ id: "carol", attributes: { mmr: "high" } }] });
  } catch (err) {
    if (!(err instanceof CupidError)) throw err;
    console.log(err.code, err.field); // invalid_argument players[0].attributes.mmr
  }
  return match;
}
