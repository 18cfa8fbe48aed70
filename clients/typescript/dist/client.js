import { create, fromJsonString } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { CupidError, TicketEndedError, codeFromName, toCupidError } from "./errors.js";
import * as pb from "./gen/cupid/v1/ticket_pb.js";
import { MatchService } from "./gen/cupid/v1/match_pb.js";
import { RatingService } from "./gen/cupid/v1/rating_pb.js";
import { matchEventFrom, matchRecordFrom, matchStateNumber, playerRatingsFrom, ratingChangeFrom, ticketEventFrom, ticketFrom, } from "./types.js";
import { toValues } from "./values.js";
import { SocketClosed, defaultBackoff, resume, socketMessages } from "./watch.js";
/**
 * CupidClient talks to one Cupid server: tickets one at a time or in bulk,
 * watches that reconnect and resume by sequence number, ready checks,
 * ratings, and for game backends the match hand-off. Calls reject with a
 * CupidError (code, message, and the field at fault).
 */
export class CupidClient {
    /** The generated Connect clients, for anything this class does not wrap. */
    tickets;
    matches;
    ratings;
    /**
     * The Connect transport the clients above use, with the credentials: for
     * the services this class does not wrap (createClient(OpponentService,
     * cupid.transport), the service from "@cupid-match/client/gen/opponent_pb").
     */
    transport;
    baseUrl;
    credential;
    backoff;
    watchVia;
    /** baseUrl is the server's address, as "http://127.0.0.1:7070". */
    constructor(baseUrl, opts = {}) {
        if (opts.apiKey && opts.playerToken) {
            throw new CupidError("invalid_argument", "give apiKey or playerToken, not both", { field: "playerToken" });
        }
        this.baseUrl = baseUrl.replace(/\/+$/, "");
        this.credential = opts.apiKey || opts.playerToken || undefined;
        this.backoff = { ...defaultBackoff, ...opts.backoff };
        const browser = typeof WebSocket === "function" && typeof document !== "undefined";
        this.watchVia = opts.watchVia ?? (browser ? "websocket" : "stream");
        if (this.watchVia === "websocket" && typeof WebSocket !== "function") {
            throw new CupidError("invalid_argument", 'watchVia: this runtime has no WebSocket (Node 20 needs --experimental-websocket); use "stream"', {
                field: "watchVia",
            });
        }
        const interceptors = [];
        if (this.credential) {
            const bearer = `Bearer ${this.credential}`;
            interceptors.push((next) => (req) => {
                req.header.set("Authorization", bearer);
                return next(req);
            });
        }
        this.transport = createConnectTransport({ baseUrl: this.baseUrl, interceptors, fetch: opts.fetch });
        this.tickets = createClient(pb.TicketService, this.transport);
        this.matches = createClient(MatchService, this.transport);
        this.ratings = createClient(RatingService, this.transport);
    }
    /**
     * createTicket puts a player (or a party) in a queue. Give requestId so a
     * retry after a lost answer returns the same ticket. A player already in
     * the queue is refused with already_exists unless replace is set.
     */
    async createTicket(req, opts) {
        const msg = ticketRequest(req, "");
        const res = await call(() => this.tickets.createTicket(msg, callOptions(opts)));
        return ticketFrom(res.ticket);
    }
    /**
     * createTickets creates up to 1,000 tickets in one call and one durable
     * write, with a result per ticket in request order: a refused ticket has
     * an error naming its field (tickets[3].players[0].id) and does not
     * refuse the others. It rejects only when the whole call failed.
     */
    async createTickets(reqs, opts) {
        const tickets = reqs.map((r, i) => ticketRequest(r, `tickets[${i}].`));
        const res = await call(() => this.tickets.createTickets({ tickets }, callOptions(opts)));
        return res.results.map((r) => {
            if (r.errorCode)
                return { error: resultError(r.errorCode, r.error, r.errorField) };
            return { ticket: ticketFrom(r.ticket), existed: r.existed };
        });
    }
    /** getTicket returns a ticket: its state, its wait, its match, and why it still waits. */
    async getTicket(id, opts) {
        const res = await call(() => this.tickets.getTicket({ id }, callOptions(opts)));
        return ticketFrom(res.ticket);
    }
    /** cancelTicket takes a waiting ticket out of its queue. */
    async cancelTicket(id, opts) {
        const res = await call(() => this.tickets.cancelTicket({ id }, callOptions(opts)));
        return ticketFrom(res.ticket);
    }
    /**
     * cancelTickets cancels up to 1,000 tickets, with a result per id in
     * request order (not_found, or failed_precondition for one already ended,
     * naming ids[i]).
     */
    async cancelTickets(ids, opts) {
        const res = await call(() => this.tickets.cancelTickets({ ids }, callOptions(opts)));
        return res.results.map((r) => {
            if (r.errorCode)
                return { error: resultError(r.errorCode, r.error, r.errorField) };
            return { ticket: ticketFrom(r.ticket) };
        });
    }
    /**
     * watchTicket yields a ticket's events in order — created, then matched,
     * cancelled or expired (with waitForAssignment, on to assigned) — and ends
     * after the final one. A dropped connection is retried with the client's
     * backoff, resuming after the last event delivered, so each event arrives
     * once. Breaking out of the loop closes the connection.
     *
     *     for await (const ev of client.watchTicket(ticket.id)) console.log(ev.kind);
     */
    watchTicket(id, opts = {}) {
        const source = this.watchVia === "websocket" ? (after, signal) => this.ticketSocket(id, after, opts, signal) : (after, signal) => this.ticketStream(id, after, opts, signal);
        return resume(source, opts.afterSeq ?? 0, {
            backoff: this.backoff,
            signal: opts.signal,
            endsCleanly: true,
            onReconnect: opts.onReconnect,
        });
    }
    async *ticketStream(id, afterSeq, opts, signal) {
        const req = { id, afterSeq: BigInt(afterSeq), waitForAssignment: opts.waitForAssignment ?? false };
        for await (const ev of this.tickets.watchTicket(req, { signal })) {
            yield ticketEventFrom(ev);
        }
    }
    async *ticketSocket(id, afterSeq, opts, signal) {
        const url = new URL(`${this.baseUrl}/v1/tickets/${encodeURIComponent(id)}/ws`);
        url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
        url.searchParams.set("after_seq", String(afterSeq));
        if (opts.waitForAssignment)
            url.searchParams.set("wait_for_assignment", "true");
        if (this.credential)
            url.searchParams.set("token", this.credential);
        try {
            for await (const text of socketMessages(url.toString(), signal)) {
                yield ticketEventFrom(fromJsonString(pb.TicketEventSchema, text, { ignoreUnknownFields: true }));
            }
        }
        catch (e) {
            if (!(e instanceof SocketClosed))
                throw e;
            if (!e.opened) {
                // A refused upgrade tells a browser nothing (close 1006): ask the
                // same question over Connect, which says why (not_found,
                // permission_denied …), or that the ticket is there and the
                // socket is worth another try.
                await this.getTicket(id, { signal });
            }
            throw new CupidError("unavailable", e.message, { cause: e });
        }
    }
    /**
     * waitForMatch watches a ticket until it is matched (with
     * waitForAssignment: until its match is assigned a server) and resolves
     * with that event, which carries the match (and the assignment). A
     * ticket that ends otherwise rejects with a TicketEndedError naming why.
     * With onProposal it answers the queue's ready checks on the way.
     */
    async waitForMatch(ticketId, opts = {}) {
        const last = opts.waitForAssignment ? "assigned" : "matched";
        for await (const ev of this.watchTicket(ticketId, opts)) {
            opts.onEvent?.(ev);
            if (ev.kind === last)
                return ev;
            if (ev.kind === "cancelled" || ev.kind === "expired")
                throw new TicketEndedError(ticketId, ev.kind, ev.reason);
            if (ev.kind === "proposed" && opts.onProposal && ev.match) {
                const accept = await opts.onProposal(ev.match);
                try {
                    await this.acceptMatch(ev.match.id, { playerId: opts.playerId, accept, signal: opts.signal });
                }
                catch (e) {
                    // Too late (the deadline passed, someone declined): the next
                    // event says what became of the ticket.
                    if (!(e instanceof CupidError && e.code === "failed_precondition"))
                        throw e;
                }
            }
        }
        throw new CupidError("unknown", `the watch of ticket ${ticketId} ended without its ${last} event`);
    }
    /**
     * acceptMatch answers a pending match's ready check for a player: accept
     * (the default) or decline. With a player token playerId may be left out.
     * The same answer twice is harmless; a changed answer, or one to a match
     * no longer pending, is failed_precondition.
     */
    async acceptMatch(matchId, opts = {}) {
        const req = { id: matchId, playerId: opts.playerId ?? "", accept: opts.accept ?? true };
        const res = await call(() => this.matches.acceptMatch(req, callOptions(opts)));
        return matchRecordFrom(res.match);
    }
    /**
     * watchMatches yields a queue's match log after afterSeq — formed (a match
     * to find a game server for), assigned, released, and the sessions'
     * events — in order, each once, reconnecting as watchTicket does. It never
     * ends by itself: keep the seq of the last event handled, with what you
     * did about it, and resume after it when your backend restarts.
     */
    watchMatches(queue, opts = {}) {
        const matches = this.matches;
        const source = async function* (after, signal) {
            for await (const ev of matches.watchMatches({ queue, afterSeq: BigInt(after) }, { signal })) {
                yield matchEventFrom(ev);
            }
        };
        return resume(source, opts.afterSeq ?? 0, {
            backoff: this.backoff,
            signal: opts.signal,
            endsCleanly: false,
            onReconnect: opts.onReconnect,
        });
    }
    /**
     * assignMatch tells the server which game server a formed match plays
     * on; the players' watchers hear it. A match is assigned once: again, or
     * released, is failed_precondition.
     */
    async assignMatch(matchId, a, opts) {
        const assignment = create(pb.AssignmentSchema, { server: a.server, sessionId: a.sessionId ?? "", connection: a.connection ?? {} });
        const res = await call(() => this.matches.assignMatch({ id: matchId, assignment }, callOptions(opts)));
        return matchRecordFrom(res.match);
    }
    /** getMatch returns a match with its state, assignment and ready-check answers. */
    async getMatch(matchId, opts) {
        const res = await call(() => this.matches.getMatch({ id: matchId }, callOptions(opts)));
        return matchRecordFrom(res.match);
    }
    /** listMatches lists a queue's matches, oldest first, optionally those in one state. */
    async listMatches(queue, opts = {}) {
        const req = { queue, state: matchStateNumber(opts.state), limit: opts.limit ?? 0 };
        const res = await call(() => this.matches.listMatches(req, callOptions(opts)));
        return res.matches.map(matchRecordFrom);
    }
    /**
     * reportResult reports a played (assigned) match's result; the server
     * rates its players. The same report again is safe (repeated is then
     * true); a different one is failed_precondition.
     */
    async reportResult(matchId, result, opts) {
        const req = {
            matchId,
            teamPlaces: result.teamPlaces ?? [],
            playerPlaces: result.playerPlaces ?? {},
            teamScores: result.teamScores ?? [],
            playerScores: result.playerScores ?? {},
            leavers: result.leavers ?? [],
        };
        const res = await call(() => this.ratings.reportResult(req, callOptions(opts)));
        return { rating: res.rating, changes: res.changes.map(ratingChangeFrom), repeated: res.repeated };
    }
    /** getPlayerRatings returns a player's ratings, league, fair-play flags and low-priority mark. */
    async getPlayerRatings(playerId, opts) {
        const res = await call(() => this.ratings.getPlayerRatings({ playerId }, callOptions(opts)));
        return playerRatingsFrom(res);
    }
}
/** ticketRequest builds a CreateTicketRequest; prefix names it in a bulk call's errors. */
function ticketRequest(r, prefix) {
    return create(pb.CreateTicketRequestSchema, {
        queue: r.queue,
        players: (r.players ?? []).map((p, i) => ({ id: p.id, attributes: toValues(p.attributes, `${prefix}players[${i}].attributes`) })),
        latencies: r.latencies ?? {},
        attributes: toValues(r.attributes, `${prefix}attributes`),
        requestId: r.requestId ?? "",
        version: r.version ?? "",
        customKey: r.customKey ?? "",
        replace: r.replace ?? false,
    });
}
function resultError(code, message, field) {
    return new CupidError(codeFromName(code), message, { field: field || undefined });
}
function callOptions(opts) {
    return { signal: opts?.signal, timeoutMs: opts?.timeoutMs };
}
/** call runs a unary call and turns what it throws into a CupidError. */
async function call(fn) {
    try {
        return await fn();
    }
    catch (e) {
        throw toCupidError(e);
    }
}
