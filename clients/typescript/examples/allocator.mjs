import { CupidClient } from "@cupid-match/client";

// A game backend's allocator: each match formed in the queue gets a game
// server. save keeps the seq of the last event handled, with what was done
// about it; after a restart, afterSeq resumes there: nothing is missed, and
// nothing is seen twice.
export async function allocate({ url, apiKey, queue, afterSeq, startGameServer, save, signal }) {
  const cupid = new CupidClient(url, { apiKey });
  for await (const ev of cupid.watchMatches(queue, { afterSeq, signal })) {
    if (ev.kind === "formed") {
      const { address, token } = await startGameServer(ev.match);
      await cupid.assignMatch(ev.match.id, { server: address, connection: { token } });
    }
    await save(ev.seq);
  }
}
