// The allocator of docs/clients.md (examples/allocator.mjs, quoted word for
// word) against a real server: players hear their game server, and an
// allocator restarted from its saved seq assigns only new matches.

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { after, before, test } from "node:test";

import { allocate } from "../examples/allocator.mjs";
import { CupidClient } from "../dist/index.js";
import { repoRoot, startServer } from "./server.mjs";

let server;
before(async () => {
  server = await startServer();
});
after(() => server?.stop());

test("docs/clients.md shows examples/allocator.mjs as it is", async () => {
  const doc = await readFile(path.join(repoRoot, "docs", "clients.md"), "utf8");
  const example = await readFile(new URL("../examples/allocator.mjs", import.meta.url), "utf8");
  assert.ok(doc.includes("```js\n" + example + "```"), "docs/clients.md must quote examples/allocator.mjs in a ```js block, unchanged");
});

test("the allocator assigns every formed match once, across a restart", async () => {
  const cupid = new CupidClient(server.url);
  const started = [];
  const saved = [];
  const startGameServer = async (match) => {
    started.push(match.id);
    return { address: `10.0.0.${started.length}:7777`, token: `t-${started.length}` };
  };

  // queuePair queues two players and resolves with their assigned events.
  async function queuePair(a, b, mmr) {
    const tickets = await cupid.createTickets([a, b].map((id) => ({ queue: "duel", players: [{ id, attributes: { mmr } }] })));
    return Promise.all(tickets.map((r) => cupid.waitForMatch(r.ticket.id, { waitForAssignment: true })));
  }

  // runUntil runs the allocator until the players of pair are assigned.
  async function runUntil(afterSeq, pair) {
    const stop = new AbortController();
    const running = allocate({ url: server.url, queue: "duel", afterSeq, startGameServer, save: (seq) => saved.push(seq), signal: stop.signal });
    const outcome = await Promise.race([
      pair.then((assigned) => ({ assigned })),
      running.then(
        () => ({ error: "it ended by itself" }),
        (error) => ({ error }),
      ),
    ]);
    assert.ok(outcome.assigned, `the allocator stopped: ${outcome.error}`);
    stop.abort();
    const stopped = await running.catch((e) => e);
    assert.equal(stopped?.name, "AbortError");
    const assigned = outcome.assigned;
    return assigned;
  }

  const first = await runUntil(0, queuePair("alloc-amy", "alloc-bo", 1000));
  assert.equal(first[0].match.id, first[1].match.id);
  assert.equal(first[0].assignment.server, "10.0.0.1:7777");
  assert.deepEqual(first[1].assignment.connection, { token: "t-1" });

  // Restarted after the last saved seq, it sees only what came since.
  const second = await runUntil(saved.at(-1), queuePair("alloc-cy", "alloc-di", 2000));
  assert.equal(second[0].assignment.server, "10.0.0.2:7777");
  assert.deepEqual(started, [first[0].match.id, second[0].match.id], "each match got one game server");
  assert.ok(saved.every((seq, i) => i === 0 || seq > saved[i - 1]), `saved seqs grow: ${saved}`);
});
