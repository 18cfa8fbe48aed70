// examples/browser/index.html in headless Chromium (Debian's chromium,
// driven by playwright-core): the page, served from its own origin, queues
// a player through the bundled client (dist/cupid.browser.js), watches over
// the WebSocket, and shows the match once a second player queues.

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { chromium } from "playwright-core";

import { CupidClient } from "../dist/index.js";
import { startServer } from "./server.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

// findChromium returns the browser to drive: CUPID_CHROMIUM, or Debian's.
function findChromium() {
  if (process.env.CUPID_CHROMIUM) return process.env.CUPID_CHROMIUM;
  return ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));
}

// serveFiles serves the package's examples/ and dist/ on a new port: the
// page's origin, not the API's.
async function serveFiles() {
  const types = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8" };
  const server = http.createServer(async (req, res) => {
    const file = path.normalize(decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (file === "/favicon.ico") {
      res.writeHead(204).end();
      return;
    }
    if (!/^\/(examples|dist)\//.test(file)) {
      res.writeHead(404).end();
      return;
    }
    try {
      const body = await readFile(path.join(root, file));
      res.writeHead(200, { "Content-Type": types[path.extname(file)] ?? "application/octet-stream" }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

const executablePath = findChromium();
let files;
let api;
let browser;

before(async () => {
  if (!executablePath) return;
  files = await serveFiles();
  api = await startServer({ args: ["--cors-origin", files.origin] });
  browser = await chromium.launch({
    executablePath,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
});

after(async () => {
  await browser?.close();
  await api?.stop();
  await files?.close();
});

test("the browser example queues a player and shows the match", { skip: !executablePath && "chromium is not installed (apt-get install chromium, or set CUPID_CHROMIUM)" }, async (t) => {
  const page = await browser.newPage();
  const problems = [];
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  page.on("console", (msg) => msg.type() === "error" && problems.push(`console: ${msg.text()}`));
  const sockets = [];
  page.on("websocket", (ws) => sockets.push(ws.url()));

  await page.goto(`${files.origin}/examples/browser/index.html?server=${encodeURIComponent(api.url)}`);
  await page.fill("#player", "web-wendy");
  await page.fill("#mmr", "1500");
  await page.click("#go");
  const status = page.locator('#status[data-state="waiting"]');
  await status.waitFor();
  const ticketId = await status.getAttribute("data-ticket");
  assert.ok(ticketId, "the page shows its ticket");

  // Another player, queued from Node, is the page's opponent.
  const cupid = new CupidClient(api.url);
  const nick = await cupid.createTicket({ queue: "duel", players: [{ id: "node-nick", attributes: { mmr: 1520 } }] });

  await page.locator("#match:not([hidden])").waitFor();
  const shown = {
    status: await page.textContent("#status"),
    matchId: await page.textContent("#match-id"),
    teams: await page.locator("#teams .team").allTextContents(),
  };
  // The page as a person sees it, kept when an assertion below fails.
  const shots = await mkdtemp(path.join(os.tmpdir(), "cupid-ts-browser-"));
  const shot = path.join(shots, "match.png");
  await page.screenshot({ path: shot });
  t.diagnostic(`screenshot: ${shot}`);

  const ticket = await cupid.getTicket(ticketId);
  assert.equal(ticket.state, "matched");
  assert.equal(shown.status, "Matched!");
  assert.equal(shown.matchId, ticket.matchId, "the page shows the server's match");
  assert.deepEqual(shown.teams.sort(), teamsOf(ticket.match), "the page shows the server's teams");
  assert.deepEqual(shown.teams.join(" ").match(/web-wendy|node-nick/g).sort(), ["node-nick", "web-wendy"]);
  assert.equal((await cupid.getTicket(nick.id)).matchId, ticket.matchId);
  assert.deepEqual(sockets, [`${api.url.replace("http", "ws")}/v1/tickets/${ticketId}/ws?after_seq=0`], "it watched over the WebSocket");
  assert.deepEqual(problems, []);
  await rm(shots, { recursive: true, force: true });
});

// teamsOf is how the page writes a match's teams.
function teamsOf(match) {
  return match.teams.map((team, i) => `Team ${i + 1}: ${team.playerIds.join(", ")}`).sort();
}
