// A game backend's side against a real server: it follows a queue's
// matches, assigns each a game server, reports results and reads ratings;
// players wait for their server and answer ready checks.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { CupidClient, CupidError, TicketEndedError } from "../dist/index.js";
import { startServer } from "./server.mjs";

// A rated 1v1 queue (the server fills mmr from the rating) and a queue
// with a ready check.
const config = `
ratings:
  - name: ranked-1v1
    model: openskill-pl
    mu: 1500
    sigma: 500
queues:
  - name: ranked
    rating: {name: ranked-1v1, attribute: mmr}
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}
      matching_rule:
        - {attribute: mmr, criteria: distance, reference: 300}
  - name: ready
    acceptance: {timeout: 60s, on_decline: cancel}
    ruleset:
      alliance: {min_number: 2, max_number: 2, player_min_number: 1, player_max_number: 1}
      matching_rule:
        - {attribute: mmr, criteria: distance, reference: 100, max: 3000}
`;

let server;
let cupid;
before(async () => {
  server = await startServer({ config });
  cupid = new CupidClient(server.url);
});
after(() => server?.stop());

test("the backend assigns each formed match; players hear their server; results move ratings", async () => {
  const alice = await cupid.createTicket({ queue: "ranked", players: [{ id: "alice" }] });
  const bob = await cupid.createTicket({ queue: "ranked", players: [{ id: "bob" }] });
  assert.equal(typeof alice.players[0].attributes.mmr, "number", "the server filled the skill");

  const waits = [alice, bob].map((t) => cupid.waitForMatch(t.id, { waitForAssignment: true }));

  // The allocator: the first formed match gets a server.
  const stop = new AbortController();
  const seen = [];
  for await (const ev of cupid.watchMatches("ranked", { signal: stop.signal })) {
    seen.push(ev);
    if (ev.kind === "formed") {
      const rec = await cupid.assignMatch(ev.match.id, { server: "10.0.0.7:7777", sessionId: "s-42", connection: { token: "j0in" } });
      assert.equal(rec.state, "assigned");
      break;
    }
  }
  const formed = seen.at(-1);

  const [a, b] = await Promise.all(waits);
  for (const ev of [a, b]) {
    assert.equal(ev.kind, "assigned");
    assert.equal(ev.match.id, formed.match.id);
    assert.deepEqual(ev.assignment.server, "10.0.0.7:7777");
    assert.deepEqual(ev.assignment.connection, { token: "j0in" });
    assert.equal(ev.assignment.sessionId, "s-42");
  }

  // Resuming after the formed event gives the assigned one next, not the
  // formed one again.
  for await (const ev of cupid.watchMatches("ranked", { afterSeq: formed.seq })) {
    assert.equal(ev.kind, "assigned");
    assert.equal(ev.match.id, formed.match.id);
    assert.ok(ev.seq > formed.seq);
    break;
  }
  const listed = await cupid.listMatches("ranked", { state: "assigned" });
  assert.deepEqual(listed.map((m) => m.match.id), [formed.match.id]);

  // Alice's team wins.
  const aliceTeam = formed.match.teams.findIndex((t) => t.playerIds.includes("alice"));
  const places = aliceTeam === 0 ? [1, 2] : [2, 1];
  const outcome = await cupid.reportResult(formed.match.id, { teamPlaces: places });
  assert.equal(outcome.rating, "ranked-1v1");
  assert.equal(outcome.repeated, false);
  const change = Object.fromEntries(outcome.changes.map((c) => [c.playerId, c]));
  assert.ok(change.alice.after > change.alice.before, "the winner rises");
  assert.ok(change.bob.after < change.bob.before, "the loser falls");

  const again = await cupid.reportResult(formed.match.id, { teamPlaces: places });
  assert.equal(again.repeated, true, "the same report again is safe");
  await assert.rejects(() => cupid.reportResult(formed.match.id, { teamPlaces: [places[1], places[0]] }), { code: "failed_precondition" });
  await assert.rejects(() => cupid.reportResult(formed.match.id, { teamPlaces: places, leavers: ["zed"] }), (err) => {
    return err instanceof CupidError && err.code === "invalid_argument" && err.field === "leavers[0]";
  });

  const ratings = await cupid.getPlayerRatings("alice");
  const ranked = ratings.ratings.find((r) => r.rating === "ranked-1v1");
  assert.equal(ranked.games, 1);
  assert.equal(ranked.wins, 1);
  assert.equal(ranked.value, change.alice.after);
});

test("a ready check: both accept and are matched; a decline cancels the decliner and requeues the other", async () => {
  const accept = (match) => {
    assert.ok(match.acceptBy instanceof Date, "a proposal carries its deadline");
    return true;
  };
  const [ann, ben] = await Promise.all(
    ["ann", "ben"].map((id, i) => cupid.createTicket({ queue: "ready", players: [{ id, attributes: { mmr: 1500 + i } }] })),
  );
  const kinds = { ann: [], ben: [] };
  const [ma, mb] = await Promise.all([
    cupid.waitForMatch(ann.id, { playerId: "ann", onProposal: accept, onEvent: (ev) => kinds.ann.push(ev.kind) }),
    cupid.waitForMatch(ben.id, { playerId: "ben", onProposal: accept, onEvent: (ev) => kinds.ben.push(ev.kind) }),
  ]);
  assert.equal(ma.match.id, mb.match.id);
  assert.deepEqual(kinds.ann, ["created", "proposed", "matched"]);
  assert.deepEqual(kinds.ben, ["created", "proposed", "matched"]);
  const rec = await cupid.getMatch(ma.match.id);
  assert.equal(rec.state, "formed");
  assert.equal(rec.accepted, 2);

  // Cy accepts, Di declines: Di's ticket is cancelled, Cy's goes back to
  // waiting and his watch goes on.
  const [cy, di] = await Promise.all(
    ["cy", "di"].map((id, i) => cupid.createTicket({ queue: "ready", players: [{ id, attributes: { mmr: 2000 + i } }] })),
  );
  const cyKinds = [];
  let requeued;
  const cyRequeued = new Promise((resolve) => (requeued = resolve));
  const cyWait = cupid.waitForMatch(cy.id, {
    playerId: "cy",
    onProposal: () => true,
    onEvent: (ev) => {
      cyKinds.push(ev.kind);
      if (ev.kind === "requeued") requeued(ev);
    },
  });
  const cyEnd = cyWait.then(
    () => assert.fail("cy's ticket was matched"),
    (err) => err,
  );
  await assert.rejects(cupid.waitForMatch(di.id, { playerId: "di", onProposal: () => false }), (err) => {
    assert.ok(err instanceof TicketEndedError);
    assert.equal(err.kind, "cancelled");
    assert.match(err.reason, /declined/);
    return true;
  });
  const ev = await cyRequeued;
  assert.match(ev.reason, /declined by di/);
  assert.equal((await cupid.getTicket(cy.id)).state, "waiting");
  await cupid.cancelTicket(cy.id);
  const err = await cyEnd;
  assert.ok(err instanceof TicketEndedError && err.kind === "cancelled", String(err));
  assert.deepEqual(cyKinds, ["created", "proposed", "requeued", "cancelled"]);
});

test("acceptMatch for a player not in the match names player_id", async () => {
  const [eli, fay] = await Promise.all(
    ["eli", "fay"].map((id, i) => cupid.createTicket({ queue: "ready", players: [{ id, attributes: { mmr: 2500 + i } }] })),
  );
  let proposal;
  for await (const ev of cupid.watchTicket(eli.id)) {
    if (ev.kind === "proposed") {
      proposal = ev.match;
      break;
    }
  }
  await assert.rejects(() => cupid.acceptMatch(proposal.id, { playerId: "zed" }), { code: "invalid_argument", field: "player_id" });
  await cupid.acceptMatch(proposal.id, { playerId: "fay", accept: false });
  await assert.rejects(() => cupid.acceptMatch(proposal.id, { playerId: "eli" }), { code: "failed_precondition" });
  assert.equal((await cupid.getTicket(fay.id)).state, "cancelled");
  await cupid.cancelTicket(eli.id);
});
