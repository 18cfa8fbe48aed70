// The quick start of docs/clients.md is examples/quickstart.mjs, word for
// word; this runs it against a real server.

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { after, before, test } from "node:test";

import { quickstart } from "../examples/quickstart.mjs";
import { CupidClient } from "../dist/index.js";
import { repoRoot, startServer } from "./server.mjs";

let server;
before(async () => {
  server = await startServer();
});
after(() => server?.stop());

test("docs/clients.md shows examples/quickstart.mjs as it is", async () => {
  const doc = await readFile(path.join(repoRoot, "docs", "clients.md"), "utf8");
  const example = await readFile(new URL("../examples/quickstart.mjs", import.meta.url), "utf8");
  assert.ok(doc.includes("```js\n" + example + "```"), "docs/clients.md must quote examples/quickstart.mjs in a ```js block, unchanged");
});

test("the quick start matches alice and bob and names the refused field", async (t) => {
  const lines = [];
  t.mock.method(console, "log", (...args) => lines.push(args.join(" ")));
  const match = await quickstart(server.url);

  const players = match.teams.map((team) => team.playerIds).flat().sort();
  assert.deepEqual(players, ["alice", "bob"]);
  assert.match(lines[0], new RegExp(`^match ${match.id}: (alice vs bob|bob vs alice)$`));
  assert.equal(lines[1], "invalid_argument players[0].attributes.mmr");

  // The server agrees: both tickets are matched, in that match.
  const cupid = new CupidClient(server.url);
  for (const id of match.teams.flatMap((team) => team.ticketIds)) {
    const ticket = await cupid.getTicket(id);
    assert.equal(ticket.state, "matched");
    assert.equal(ticket.matchId, match.id);
  }
});
