// Credentials against a real server with an auth section: a server key for
// the backend, HS256 player tokens for game clients (docs/security.md).

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createHmac, randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";

import { CupidClient, CupidError } from "../dist/index.js";
import { buildCupid, startServer } from "./server.mjs";

let server;
let key;
let secret;
let dir;

// playerToken signs an HS256 JWT for player sub, as a studio's auth service would.
function playerToken(sub) {
  const b64 = (v) => Buffer.from(JSON.stringify(v)).toString("base64url");
  const body = `${b64({ alg: "HS256", typ: "JWT" })}.${b64({ sub, aud: "cupid", exp: Math.floor(Date.now() / 1000) + 3600 })}`;
  return `${body}.${createHmac("sha256", secret).update(body).digest("base64url")}`;
}

before(async () => {
  // A key the way an operator makes one: cupid key new.
  const bin = await buildCupid();
  const { stdout } = await promisify(execFile)(bin, ["key", "new", "--name", "backend", "--scopes", "tickets"]);
  key = /^key:\s+(\S+)/m.exec(stdout)[1];
  const hash = /^sha256:\s+(\S+)/m.exec(stdout)[1];
  dir = await mkdtemp(path.join(os.tmpdir(), "cupid-ts-auth-"));
  secret = randomBytes(48).toString("base64");
  const secretFile = path.join(dir, "hs256.secret");
  await writeFile(secretFile, secret);
  server = await startServer({
    config: `
queues:
  - name: duel
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}
      matching_rule: [{attribute: mmr, criteria: distance, reference: 100, max: 3000}]
auth:
  server_keys: [{name: backend, sha256: ${hash}, scopes: [tickets]}]
  player_tokens: {audience: cupid, hs256_secret_file: ${secretFile}}
`,
  });
});
after(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const duel = (id, mmr) => ({ queue: "duel", players: [{ id, attributes: { mmr } }] });

test("without a credential every call is unauthenticated", async () => {
  const anonymous = new CupidClient(server.url);
  await assert.rejects(() => anonymous.createTicket(duel("nobody", 1500)), (err) => {
    assert.ok(err instanceof CupidError);
    assert.equal(err.code, "unauthenticated");
    assert.match(err.message, /Authorization: Bearer/);
    return true;
  });
  const wrong = new CupidClient(server.url, { apiKey: "cupid_sk_not-a-key" });
  await assert.rejects(() => wrong.getTicket("x"), { code: "unauthenticated" });
});

test("apiKey and playerToken together are refused before any call", () => {
  assert.throws(() => new CupidClient(server.url, { apiKey: "a", playerToken: "b" }), { code: "invalid_argument", field: "playerToken" });
});

for (const via of ["stream", "websocket"]) {
  describe(`a player token, watching over the ${via}`, () => {
    test("queues and watches its own player, and no one else", async () => {
      const backend = new CupidClient(server.url, { apiKey: key });
      const gus = new CupidClient(server.url, { playerToken: playerToken(`gus-${via}`), watchVia: via });

      const own = await gus.createTicket(duel(`gus-${via}`, 1500));
      await assert.rejects(() => gus.createTicket(duel(`hal-${via}`, 1500)), (err) => {
        assert.equal(err.code, "permission_denied");
        assert.match(err.message, new RegExp(`gus-${via}`));
        return true;
      });

      // The backend queues an opponent with its key; the player's watch
      // (the token as a header on the stream, as ?token= on the socket)
      // sees the match.
      const other = await backend.createTicket(duel(`ivy-${via}`, 1510));
      const matched = await gus.waitForMatch(own.id);
      assert.deepEqual(matched.match.teams.flatMap((t) => t.ticketIds).sort(), [own.id, other.id].sort());

      // Another player's ticket is not his to watch: refused, not retried.
      await assert.rejects(
        async () => {
          for await (const _ of gus.watchTicket(other.id));
        },
        { code: "permission_denied" },
      );
    });
  });
}
