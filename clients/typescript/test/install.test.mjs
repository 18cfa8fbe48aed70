// docs/clients.md's install steps: npm pack, then npm install of the
// tarball in another project, which then reaches a real server.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { startServer } from "./server.mjs";

const run = promisify(execFile);
const pkg = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

let server;
let dir;
before(async () => {
  server = await startServer();
  dir = await mkdtemp(path.join(os.tmpdir(), "cupid-ts-install-"));
});
after(async () => {
  await server?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test("the packed tarball installs in another project and works there", async () => {
  const { stdout } = await run("npm", ["pack", "--pack-destination", dir], { cwd: pkg });
  const tarball = path.join(dir, stdout.trim().split("\n").at(-1));
  assert.match(tarball, /cupid-match-client-0\.1\.0\.tgz$/, "the name docs/clients.md gives");

  const game = path.join(dir, "my-game");
  await run("mkdir", ["-p", game]);
  await writeFile(path.join(game, "package.json"), JSON.stringify({ name: "my-game", private: true, type: "module" }));
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", tarball], { cwd: game });
  await writeFile(
    path.join(game, "main.js"),
    `import { CupidClient } from "@cupid-match/client";
const cupid = new CupidClient(process.argv[2]);
const t = await cupid.createTicket({ queue: "duel", players: [{ id: "packed-pat", attributes: { mmr: 1500 } }] });
console.log(JSON.stringify((await cupid.getTicket(t.id)).players));
`,
  );
  const out = await run("node", ["main.js", server.url], { cwd: game });
  assert.deepEqual(JSON.parse(out.stdout), [{ id: "packed-pat", attributes: { mmr: 1500 } }]);
});
