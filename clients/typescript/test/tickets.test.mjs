// Tickets one at a time and in bulk against a real server (the demo
// configuration): plain attribute values both ways, refusals as CupidErrors
// naming the field, and nothing changed by a refused request.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { CupidClient, CupidError } from "../dist/index.js";
import { startServer } from "./server.mjs";

let server;
let cupid;
before(async () => {
  server = await startServer();
  cupid = new CupidClient(server.url);
});
after(() => server?.stop());

// waiting counts a queue's waiting tickets, as the server lists them.
async function waiting(queue) {
  const res = await cupid.tickets.listTickets({ queue, state: 1, limit: 1000 });
  return res.tickets.length;
}

test("attribute values go and come back as plain numbers, strings, booleans and lists", async () => {
  const sent = {
    queue: "duel",
    players: [{ id: "plain-ann", attributes: { mmr: 2990.5, role: "tank", premium: true, modes: ["casual", "ranked"] } }],
    latencies: { eu: 30, us: 120 },
    attributes: { mode: ["casual"] },
    requestId: "plain-ann-1",
  };
  const created = await cupid.createTicket(sent);
  assert.equal(created.state, "waiting");
  assert.ok(created.createdAt instanceof Date);
  const got = await cupid.getTicket(created.id);
  assert.deepEqual(got.players, sent.players);
  assert.deepEqual(got.latencies, sent.latencies);
  assert.deepEqual(got.attributes, sent.attributes);
  assert.equal(got.requestId, "plain-ann-1");
  assert.equal(typeof got.why?.summary, "string");

  // The same request id and body: the first ticket again, nothing new.
  const again = await cupid.createTicket(sent);
  assert.equal(again.id, created.id);
  await cupid.cancelTicket(created.id);
});

test("a refused ticket is a CupidError with its code and field, and changes nothing", async () => {
  const before = await waiting("duel");
  const held = await cupid.createTicket({ queue: "duel", players: [{ id: "refused-bea", attributes: { mmr: 2800 } }] });
  const cases = [
    {
      name: "an attribute of the wrong type",
      req: { queue: "duel", players: [{ id: "refused-cid", attributes: { mmr: "high" } }] },
      code: "invalid_argument",
      field: "players[0].attributes.mmr",
    },
    {
      name: "a player without an id",
      req: { queue: "duel", players: [{ id: "", attributes: { mmr: 1500 } }] },
      code: "invalid_argument",
      field: "players[0].id",
    },
    {
      name: "an unknown queue",
      req: { queue: "dual", players: [{ id: "refused-dan", attributes: { mmr: 1500 } }] },
      code: "not_found",
      field: "queue",
    },
    {
      name: "a player already waiting in the queue",
      req: { queue: "duel", players: [{ id: "refused-bea", attributes: { mmr: 2800 } }] },
      code: "already_exists",
      field: "players[0].id",
    },
    {
      name: "a number JSON cannot carry (refused before sending)",
      req: { queue: "duel", players: [{ id: "refused-eve", attributes: { mmr: NaN } }] },
      code: "invalid_argument",
      field: "players[0].attributes.mmr",
    },
    {
      name: "a list of numbers (refused before sending)",
      req: { queue: "duel", players: [{ id: "refused-fay", attributes: { mmr: 1500, tags: ["a", 2] } }] },
      code: "invalid_argument",
      field: "players[0].attributes.tags[1]",
    },
  ];
  for (const c of cases) {
    await assert.rejects(
      () => cupid.createTicket(c.req),
      (err) => {
        assert.ok(err instanceof CupidError, `${c.name}: ${err}`);
        assert.equal(err.code, c.code, `${c.name}: ${err.message}`);
        assert.equal(err.field, c.field, `${c.name}: ${err.message}`);
        assert.ok(err.message.includes(c.field), `${c.name}: the message names the field too: ${err.message}`);
        return true;
      },
      c.name,
    );
  }
  assert.equal(await waiting("duel"), before + 1, "only the one accepted ticket waits");
  await cupid.cancelTicket(held.id);

  await assert.rejects(() => cupid.getTicket("no-such-ticket"), { name: "CupidError", code: "not_found", field: "id" });
});

test("createTickets gives a result per ticket; cancelTickets too", async () => {
  const results = await cupid.createTickets([
    { queue: "duel", players: [{ id: "bulk-gil", attributes: { mmr: 100 } }] },
    { queue: "duel", players: [{ id: "bulk-hal", attributes: { mmr: "x" } }] },
    { queue: "squad5v5", players: [{ id: "bulk-ida", attributes: { mmr: 1200 } }] },
    { queue: "duel", players: [{ id: "bulk-gil", attributes: { mmr: 100 } }] },
  ]);
  assert.equal(results.length, 4);
  assert.equal(results[0].ticket?.state, "waiting");
  assert.deepEqual(results[0].ticket?.players, [{ id: "bulk-gil", attributes: { mmr: 100 } }]);
  assert.equal(results[0].existed, false);
  assert.equal(results[1].error?.code, "invalid_argument");
  assert.equal(results[1].error?.field, "tickets[1].players[0].attributes.mmr");
  assert.equal(results[2].ticket?.queue, "squad5v5");
  assert.equal(results[3].error?.code, "already_exists", "bulk-gil is in the queue already");
  assert.equal(results[3].error?.field, "tickets[3].players[0].id");

  // A bad value is refused before sending, naming its place in the call.
  await assert.rejects(
    () => cupid.createTickets([{ queue: "duel", players: [{ id: "ok" }] }, { queue: "duel", players: [{ id: "x", attributes: { mmr: Infinity } }] }]),
    { code: "invalid_argument", field: "tickets[1].players[0].attributes.mmr" },
  );

  const ids = [results[0].ticket.id, "no-such-ticket", results[2].ticket.id];
  const cancelled = await cupid.cancelTickets(ids);
  assert.equal(cancelled[0].ticket?.state, "cancelled");
  assert.equal(cancelled[1].error?.code, "not_found");
  assert.equal(cancelled[1].error?.field, "ids[1]", "the id at fault, as the Go client sees it too");
  assert.equal(cancelled[2].ticket?.state, "cancelled");

  const twice = await cupid.cancelTickets([results[0].ticket.id]);
  assert.equal(twice[0].error?.code, "failed_precondition", "it had ended already");
  assert.equal(twice[0].error?.field, "ids[0]");
  await assert.rejects(() => cupid.cancelTicket(results[2].ticket.id), { code: "failed_precondition" });
});

test("two players are matched, and both tickets say so", async () => {
  const a = await cupid.createTicket({ queue: "duel", players: [{ id: "pair-jo", attributes: { mmr: 1800 } }] });
  const b = await cupid.createTicket({ queue: "duel", players: [{ id: "pair-kim", attributes: { mmr: 1830 } }] });
  const [ma, mb] = await Promise.all([cupid.waitForMatch(a.id), cupid.waitForMatch(b.id)]);
  assert.equal(ma.kind, "matched");
  assert.equal(ma.match.id, mb.match.id);
  assert.deepEqual(ma.match.teams.flatMap((t) => t.ticketIds).sort(), [a.id, b.id].sort());
  assert.ok(ma.match.quality.score > 0 && ma.match.quality.score <= 1);
  const got = await cupid.getTicket(a.id);
  assert.equal(got.state, "matched");
  assert.equal(got.match?.id, ma.match.id);
});

test("waitForMatch rejects with TicketEndedError when the ticket is cancelled", async () => {
  const t = await cupid.createTicket({ queue: "duel", players: [{ id: "ended-lee", attributes: { mmr: 50 } }] });
  // Caught at once: the rejection may come before cancelTicket answers.
  const ended = cupid.waitForMatch(t.id).then(
    () => assert.fail("the cancelled ticket was matched"),
    (err) => err,
  );
  await cupid.cancelTicket(t.id);
  const err = await ended;
  assert.equal(err.name, "TicketEndedError");
  assert.equal(err.kind, "cancelled");
  assert.equal(err.ticketId, t.id);
  assert.equal(err.reason, "", "its owner cancelled it: the server gives no reason");
});

test("the generated services the class does not wrap are reachable with its transport", async () => {
  const { createClient } = await import("@connectrpc/connect");
  const { OpponentService } = await import("@cupid-match/client/gen/opponent_pb");
  const opponents = createClient(OpponentService, cupid.transport);
  // Generated messages take protobuf Values as they are.
  const guild = (name) => ({ guild: { kind: { case: "stringValue", value: name } } });
  await opponents.updatePlayer({ finder: "raid", playerId: "gen-ann", model: { mmr: 1510, attributes: guild("wolves") } });
  const found = await opponents.findOpponent({ finder: "raid", attacker: { id: "gen-bob", mmr: 1500, attributes: guild("bears") } });
  assert.equal(found.playerId, "gen-ann");
});
