// Watches against a real server behind a proxy that cuts connections: every
// event arrives once, in order, over the Connect stream and the WebSocket.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { once } from "node:events";

import { CupidClient, CupidError } from "../dist/index.js";
import { startProxy, startServer } from "./server.mjs";

let server;
before(async () => {
  server = await startServer();
});
after(() => server?.stop());

async function firstSeq(c, id) {
  for await (const ev of c.watchTicket(id)) return ev.seq;
}

const duel = (id, mmr) => ({ queue: "duel", players: [{ id, attributes: { mmr } }] });

for (const via of ["stream", "websocket"]) {
  describe(`watchTicket over the ${via}`, () => {
    test("resumes after a dropped connection without losing or repeating an event", async () => {
      const proxy = await startProxy(server.addr);
      try {
        const direct = new CupidClient(server.url);
        const watcher = new CupidClient(proxy.url, { watchVia: via, backoff: { firstMs: 10, maxMs: 50 } });
        const alice = await direct.createTicket(duel(`${via}-alice`, 1500));

        const events = [];
        const reconnects = [];
        let cutOff;
        const watched = (async () => {
          for await (const ev of watcher.watchTicket(alice.id, { onReconnect: (r) => reconnects.push(r) })) {
            events.push(ev);
            if (ev.kind === "created") cutOff = cutOffNow();
          }
        })();

        // Once alice's created event is in, the network fails: open
        // connections are cut and new ones wait. Meanwhile bob queues
        // and alice is matched, so her matched event happens while her
        // watcher is cut off.
        async function cutOffNow() {
          proxy.hold();
          assert.ok(proxy.cut() >= 1, "the watch's connection was open");
          await direct.createTicket(duel(`${via}-bob`, 1540));
          await direct.waitForMatch(alice.id);
          while (proxy.parkedCount() === 0) await new Promise((r) => setTimeout(r, 10)); // the watcher's retry
          proxy.release();
        }
        await watched;
        await cutOff;

        assert.deepEqual(events.map((e) => e.kind), ["created", "matched"]);
        assert.ok(events[0].seq < events[1].seq, "sequence numbers grow");
        assert.ok(reconnects.length >= 1, "the watch reconnected");
        assert.equal(reconnects[0].afterSeq, events[0].seq, "it resumed after the last event it delivered");
        const ticket = await direct.getTicket(alice.id);
        assert.equal(events[1].match.id, ticket.matchId);
        assert.ok(proxy.connections >= 2);
      } finally {
        await proxy.close();
      }
    });

    test("an ended ticket's watch gives its final event at once", async () => {
      const c = new CupidClient(server.url, { watchVia: via });
      const t = await c.createTicket(duel(`${via}-carol`, 2900));
      await c.cancelTicket(t.id);
      const kinds = [];
      for await (const ev of c.watchTicket(t.id)) kinds.push(ev.kind);
      assert.deepEqual(kinds, ["created", "cancelled"]);

      const rest = [];
      for await (const ev of c.watchTicket(t.id, { afterSeq: kinds.length && (await firstSeq(c, t.id)) })) rest.push(ev.kind);
      assert.deepEqual(rest, ["cancelled"], "after the created event: only the cancellation");

      const none = [];
      for await (const ev of c.watchTicket(t.id, { afterSeq: Number.MAX_SAFE_INTEGER })) none.push(ev.kind);
      assert.deepEqual(none, [], "the server replays the final event, the client has delivered it already: the watch just ends");
    });

    test("an unknown ticket is refused with not_found, not retried", async () => {
      const c = new CupidClient(server.url, { watchVia: via, backoff: { firstMs: 10, attempts: 0 } });
      await assert.rejects(
        async () => {
          for await (const _ of c.watchTicket("0193-no-such-ticket"));
        },
        (err) => err instanceof CupidError && err.code === "not_found" && err.field === "id",
      );
    });

    test("aborting the signal ends the watch and closes its connection", async () => {
      const proxy = await startProxy(server.addr);
      try {
        const c = new CupidClient(proxy.url, { watchVia: via });
        const direct = new CupidClient(server.url);
        const t = await direct.createTicket(duel(`${via}-dave`, 2950));
        const ctrl = new AbortController();
        const kinds = [];
        await assert.rejects(
          async () => {
            for await (const ev of c.watchTicket(t.id, { signal: ctrl.signal })) {
              kinds.push(ev.kind);
              ctrl.abort();
            }
          },
          { name: "AbortError" },
        );
        assert.deepEqual(kinds, ["created"]);
        // The watch's connection goes away (waited for: the test's own
        // time limit is the bound).
        while (proxy.openCount() > 0) await new Promise((r) => setTimeout(r, 10));
        await direct.cancelTicket(t.id);
      } finally {
        await proxy.close();
      }
    });
  });
}

test("asking for the WebSocket where the runtime has none is refused at once", async () => {
  // A Node 20 without --experimental-websocket: no WebSocket global.
  const { execFile } = await import("node:child_process");
  const script = `
    import { CupidClient } from "@cupid-match/client";
    try { new CupidClient("http://127.0.0.1:1", { watchVia: "websocket" }); console.log("accepted"); }
    catch (e) { console.log(e.code, e.field); }
    new CupidClient("http://127.0.0.1:1"); // the default, the stream, is fine
  `;
  const out = await new Promise((resolve, reject) =>
    execFile(process.execPath, ["--input-type=module", "-e", script], { cwd: new URL("..", import.meta.url), env: { ...process.env, NODE_OPTIONS: "" } }, (err, stdout) =>
      err ? reject(err) : resolve(stdout.trim()),
    ),
  );
  const hasWebSocket = process.versions.node.split(".")[0] >= 22;
  assert.equal(out, hasWebSocket ? "accepted" : "invalid_argument watchVia");
});
