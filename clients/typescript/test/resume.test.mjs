// resume, the loop under every watch, on scripted connections: what a real
// server cannot be made to do on cue (replay events the client has seen,
// fail again and again) is scripted here; the watch tests run it against
// the real server.

import assert from "node:assert/strict";
import { test } from "node:test";

import { CupidError } from "../dist/index.js";
import { resume } from "../dist/watch.js";

const fast = { firstMs: 1, maxMs: 2, attempts: 0 };

// scripted returns a source whose nth connection yields script[n]'s events
// and then throws its error (or ends cleanly), recording each afterSeq.
function scripted(script) {
  const asked = [];
  const source = async function* (afterSeq) {
    const step = script[asked.length];
    asked.push(afterSeq);
    for (const seq of step.events) yield { seq };
    if (step.error) throw step.error;
  };
  return { source, asked };
}

test("each event is delivered once across reconnections, whatever the server replays", async () => {
  const down = new CupidError("unavailable", "connection reset");
  const { source, asked } = scripted([
    { events: [1, 2], error: down },
    { events: [2, 3], error: down }, // 2 replayed
    { events: [], error: down }, // nothing new
    { events: [1, 3, 5] }, // a final event replayed, then the clean end
  ]);
  const got = [];
  for await (const ev of resume(source, 0, { backoff: fast, endsCleanly: true })) got.push(ev.seq);
  assert.deepEqual(got, [1, 2, 3, 5]);
  assert.deepEqual(asked, [0, 2, 3, 3], "each connection resumes after the last event delivered");
});

test("a refusal ends the watch at once; retries give up after backoff.attempts", async () => {
  const refused = scripted([{ events: [1], error: new CupidError("permission_denied", "not yours") }]);
  await assert.rejects(async () => {
    for await (const _ of resume(refused.source, 0, { backoff: fast, endsCleanly: true }));
  }, { code: "permission_denied" });
  assert.equal(refused.asked.length, 1);

  const down = new CupidError("unavailable", "connection refused");
  const failing = scripted([{ events: [], error: down }, { events: [], error: down }, { events: [], error: down }]);
  const reconnects = [];
  await assert.rejects(
    async () => {
      for await (const _ of resume(failing.source, 7, { backoff: { ...fast, attempts: 2 }, endsCleanly: true, onReconnect: (r) => reconnects.push(r) }));
    },
    (err) => err.code === "unavailable" && /gave up after 2 reconnections/.test(err.message),
  );
  assert.equal(failing.asked.length, 3);
  assert.deepEqual(reconnects.map((r) => r.afterSeq), [7, 7]);
});

test("a stream that must not end (a match log) reconnects when the server ends it", async () => {
  const { source, asked } = scripted([{ events: [4] }, { events: [6], error: new CupidError("not_found", "no queue") }]);
  const got = [];
  await assert.rejects(async () => {
    for await (const ev of resume(source, 0, { backoff: fast, endsCleanly: false })) got.push(ev.seq);
  }, { code: "not_found" });
  assert.deepEqual(got, [4, 6]);
  assert.deepEqual(asked, [0, 4]);
});
