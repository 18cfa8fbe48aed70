// Test helpers: a real Cupid server built from this repository and started
// on a free loopback port, and a TCP proxy in front of it whose connections
// a test can cut.

import { execFile, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

let built;

/**
 * buildCupid builds ./cmd/cupid, once per test file, into
 * node_modules/.cache: the same path every time, so that go finds the
 * binary up to date and skips the link when nothing changed (the test
 * files run one after another: npm test passes --test-concurrency=1).
 */
export function buildCupid() {
  built ??= (async () => {
    const dir = path.resolve(repoRoot, "clients/typescript/node_modules/.cache/cupid-test");
    await mkdir(dir, { recursive: true });
    const bin = path.join(dir, "cupid");
    await promisify(execFile)("go", ["build", "-o", bin, "./cmd/cupid"], { cwd: repoRoot });
    return bin;
  })();
  return built;
}

/**
 * startServer runs `cupid serve` on 127.0.0.1:0 over a fresh data directory
 * and resolves once it logs where it listens. config is YAML text (the demo
 * configuration when absent); args are more flags. Stop it with stop().
 */
export async function startServer({ config, args = [] } = {}) {
  const bin = await buildCupid();
  const dir = await mkdtemp(path.join(os.tmpdir(), "cupid-ts-data-"));
  const flags = ["serve", "--addr", "127.0.0.1:0", "--data", path.join(dir, "data"), "--log-level", "info", ...args];
  if (config !== undefined) {
    const file = path.join(dir, "cupid.yaml");
    await writeFile(file, config);
    flags.push("--config", file);
  }
  const child = spawn(bin, flags, { stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  // A test file that ends without its after hook (a failure, a time-out)
  // must not leave the server running.
  const orphan = () => child.kill("SIGKILL");
  process.once("exit", orphan);
  const addr = await new Promise((resolve, reject) => {
    const read = (chunk) => {
      log += chunk;
      const m = /msg=listening addr=(\S+)/.exec(log);
      if (m) resolve(m[1]);
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    exited.then(({ code, signal }) => reject(new Error(`cupid serve exited (${code ?? signal}) before listening:\n${log}`)));
  });
  return {
    url: `http://${addr}`,
    addr,
    dir,
    bin,
    log: () => log,
    async stop() {
      child.kill("SIGTERM");
      await exited;
      process.off("exit", orphan);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * startProxy forwards 127.0.0.1:<port> to target ("127.0.0.1:7070"). cut()
 * destroys every open connection, as a network failure would; while held
 * (hold() until release()) new connections wait, unanswered, so a test can
 * change things on the server while a client is cut off. connections
 * counts those accepted.
 */
export async function startProxy(target) {
  const i = target.lastIndexOf(":");
  const [host, port] = [target.slice(0, i), Number(target.slice(i + 1))];
  const open = new Set();
  let parked = [];
  const proxy = { connections: 0, url: "", held: false, cut, hold, release, close };
  const forward = (client) => {
    const upstream = net.connect(port, host);
    const pair = [client, upstream];
    open.add(pair);
    const end = () => {
      client.destroy();
      upstream.destroy();
      open.delete(pair);
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
    client.pipe(upstream);
    upstream.pipe(client);
  };
  const server = net.createServer((client) => {
    proxy.connections++;
    if (proxy.held) {
      client.pause();
      client.on("error", () => client.destroy());
      parked.push(client);
      return;
    }
    forward(client);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.url = `http://127.0.0.1:${server.address().port}`;
  function cut() {
    const n = open.size;
    for (const [a, b] of open) {
      a.destroy();
      b.destroy();
    }
    open.clear();
    return n;
  }
  function hold() {
    proxy.held = true;
  }
  /** release forwards the connections that waited; it resolves how many did. */
  function release() {
    proxy.held = false;
    const waiting = parked.filter((c) => !c.destroyed);
    parked = [];
    for (const c of waiting) {
      forward(c);
      c.resume();
    }
    return waiting.length;
  }
  /** openCount is how many connections are forwarded now. */
  proxy.openCount = () => open.size;
  /** parkedCount is how many connections wait while held. */
  proxy.parkedCount = () => parked.filter((c) => !c.destroyed).length;
  function close() {
    cut();
    for (const c of parked) c.destroy();
    return new Promise((resolve) => server.close(resolve));
  }
  return proxy;
}
