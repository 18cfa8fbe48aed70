// A rate-limited call's CupidError carries the server's Retry-After.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { CupidClient } from "../dist/index.js";
import { startServer } from "./server.mjs";

let server;
before(async () => {
  // One call every 100 seconds, two at once, for each address.
  server = await startServer({
    config: `
queues:
  - name: duel
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}
      matching_rule: [{attribute: mmr, criteria: distance, reference: 100, max: 3000}]
server:
  rate_limits:
    anonymous: {rate: 0.01, burst: 2}
`,
  });
});
after(() => server?.stop());

test("a call past the caller's bucket is resource_exhausted with retryAfterMs", async () => {
  const cupid = new CupidClient(server.url);
  await assert.rejects(() => cupid.getTicket("a"), { code: "not_found" });
  await assert.rejects(() => cupid.getTicket("b"), { code: "not_found" });
  await assert.rejects(
    () => cupid.getTicket("c"),
    (err) => {
      assert.equal(err.code, "resource_exhausted");
      assert.match(err.message, /rate limit/);
      assert.ok(err.retryAfterMs >= 1000, `retryAfterMs ${err.retryAfterMs}: whole seconds from Retry-After`);
      return true;
    },
  );
});
