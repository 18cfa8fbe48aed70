import { type Client, type Transport } from "@connectrpc/connect";
import { CupidError } from "./errors.js";
import * as pb from "./gen/cupid/v1/ticket_pb.js";
import { MatchService } from "./gen/cupid/v1/match_pb.js";
import { RatingService } from "./gen/cupid/v1/rating_pb.js";
import { type Assignment, type Match, type MatchEvent, type MatchRecord, type MatchResult, type MatchState, type PlayerRatings, type ResultOutcome, type Ticket, type TicketEvent, type TicketRequest } from "./types.js";
import { type Backoff, type Reconnect } from "./watch.js";
export interface ClientOptions {
    /**
     * A server key (cupid_sk_…): a game backend acting for any player within
     * the key's scopes. Sent as Authorization: Bearer on every call, and as
     * ?token= on WebSockets, which browsers cannot give headers.
     */
    apiKey?: string;
    /** A player token (a JWT the studio signed): a game client acting as its player. Sent as apiKey is. */
    playerToken?: string;
    /** How watches wait between reconnections (defaultBackoff when absent). */
    backoff?: Partial<Backoff>;
    /**
     * How watchTicket reaches the server: "websocket" (/v1/tickets/<id>/ws) or
     * "stream" (the Connect server stream over fetch). The default is the
     * WebSocket where the page has one (a browser), else the stream (Node).
     */
    watchVia?: "websocket" | "stream";
    /** The fetch the calls use (the global one when absent). */
    fetch?: typeof globalThis.fetch;
}
/** Options every call takes. */
export interface RequestOptions {
    /** Aborts the call (and a watch's every reconnection). */
    signal?: AbortSignal;
    /** Gives up on a unary call after this long, with deadline_exceeded. */
    timeoutMs?: number;
}
export interface WatchOptions extends RequestOptions {
    /** Deliver only the events after this sequence number (0: from the ticket's creation). */
    afterSeq?: number;
    /**
     * Go on past matched until the match is assigned a game server (the
     * assigned event, with the server's address, ends the watch); a released
     * match's requeued ticket is followed into its next match.
     */
    waitForAssignment?: boolean;
    /** Told each time the watch reconnects after a dropped connection. */
    onReconnect?: (r: Reconnect) => void;
}
export interface WaitOptions extends WatchOptions {
    /** Sees every event first, in order. */
    onEvent?: (ev: TicketEvent) => void;
    /**
     * Answers a ready check: called on each proposed match, it says whether
     * the player accepts it (a game shows its "match found" dialog here).
     * Without it, proposals are left to the caller's own acceptMatch.
     */
    onProposal?: (match: Match) => boolean | Promise<boolean>;
    /** The player who answers the ready check; empty with a player token (the token's player). */
    playerId?: string;
}
/** What became of one ticket of createTickets. */
export type CreateResult = {
    ticket: Ticket;
    existed: boolean;
    error?: undefined;
} | {
    ticket?: undefined;
    existed?: undefined;
    error: CupidError;
};
/** What became of one id of cancelTickets. */
export type CancelResult = {
    ticket: Ticket;
    error?: undefined;
} | {
    ticket?: undefined;
    error: CupidError;
};
/**
 * CupidClient talks to one Cupid server: tickets one at a time or in bulk,
 * watches that reconnect and resume by sequence number, ready checks,
 * ratings, and for game backends the match hand-off. Calls reject with a
 * CupidError (code, message, and the field at fault).
 */
export declare class CupidClient {
    /** The generated Connect clients, for anything this class does not wrap. */
    readonly tickets: Client<typeof pb.TicketService>;
    readonly matches: Client<typeof MatchService>;
    readonly ratings: Client<typeof RatingService>;
    /**
     * The Connect transport the clients above use, with the credentials: for
     * the services this class does not wrap (createClient(OpponentService,
     * cupid.transport), the service from "@cupid-match/client/gen/opponent_pb").
     */
    readonly transport: Transport;
    private readonly baseUrl;
    private readonly credential?;
    private readonly backoff;
    private readonly watchVia;
    /** baseUrl is the server's address, as "http://127.0.0.1:7070". */
    constructor(baseUrl: string, opts?: ClientOptions);
    /**
     * createTicket puts a player (or a party) in a queue. Give requestId so a
     * retry after a lost answer returns the same ticket. A player already in
     * the queue is refused with already_exists unless replace is set.
     */
    createTicket(req: TicketRequest, opts?: RequestOptions): Promise<Ticket>;
    /**
     * createTickets creates up to 1,000 tickets in one call and one durable
     * write, with a result per ticket in request order: a refused ticket has
     * an error naming its field (tickets[3].players[0].id) and does not
     * refuse the others. It rejects only when the whole call failed.
     */
    createTickets(reqs: TicketRequest[], opts?: RequestOptions): Promise<CreateResult[]>;
    /** getTicket returns a ticket: its state, its wait, its match, and why it still waits. */
    getTicket(id: string, opts?: RequestOptions): Promise<Ticket>;
    /** cancelTicket takes a waiting ticket out of its queue. */
    cancelTicket(id: string, opts?: RequestOptions): Promise<Ticket>;
    /**
     * cancelTickets cancels up to 1,000 tickets, with a result per id in
     * request order (not_found, or failed_precondition for one already ended,
     * naming ids[i]).
     */
    cancelTickets(ids: string[], opts?: RequestOptions): Promise<CancelResult[]>;
    /**
     * watchTicket yields a ticket's events in order — created, then matched,
     * cancelled or expired (with waitForAssignment, on to assigned) — and ends
     * after the final one. A dropped connection is retried with the client's
     * backoff, resuming after the last event delivered, so each event arrives
     * once. Breaking out of the loop closes the connection.
     *
     *     for await (const ev of client.watchTicket(ticket.id)) console.log(ev.kind);
     */
    watchTicket(id: string, opts?: WatchOptions): AsyncGenerator<TicketEvent, void, undefined>;
    private ticketStream;
    private ticketSocket;
    /**
     * waitForMatch watches a ticket until it is matched (with
     * waitForAssignment: until its match is assigned a server) and resolves
     * with that event, which carries the match (and the assignment). A
     * ticket that ends otherwise rejects with a TicketEndedError naming why.
     * With onProposal it answers the queue's ready checks on the way.
     */
    waitForMatch(ticketId: string, opts?: WaitOptions): Promise<TicketEvent>;
    /**
     * acceptMatch answers a pending match's ready check for a player: accept
     * (the default) or decline. With a player token playerId may be left out.
     * The same answer twice is harmless; a changed answer, or one to a match
     * no longer pending, is failed_precondition.
     */
    acceptMatch(matchId: string, opts?: RequestOptions & {
        playerId?: string;
        accept?: boolean;
    }): Promise<MatchRecord>;
    /**
     * watchMatches yields a queue's match log after afterSeq — formed (a match
     * to find a game server for), assigned, released, and the sessions'
     * events — in order, each once, reconnecting as watchTicket does. It never
     * ends by itself: keep the seq of the last event handled, with what you
     * did about it, and resume after it when your backend restarts.
     */
    watchMatches(queue: string, opts?: RequestOptions & {
        afterSeq?: number;
        onReconnect?: (r: Reconnect) => void;
    }): AsyncGenerator<MatchEvent, void, undefined>;
    /**
     * assignMatch tells the server which game server a formed match plays
     * on; the players' watchers hear it. A match is assigned once: again, or
     * released, is failed_precondition.
     */
    assignMatch(matchId: string, a: Assignment, opts?: RequestOptions): Promise<MatchRecord>;
    /** getMatch returns a match with its state, assignment and ready-check answers. */
    getMatch(matchId: string, opts?: RequestOptions): Promise<MatchRecord>;
    /** listMatches lists a queue's matches, oldest first, optionally those in one state. */
    listMatches(queue: string, opts?: RequestOptions & {
        state?: MatchState;
        limit?: number;
    }): Promise<MatchRecord[]>;
    /**
     * reportResult reports a played (assigned) match's result; the server
     * rates its players. The same report again is safe (repeated is then
     * true); a different one is failed_precondition.
     */
    reportResult(matchId: string, result: MatchResult, opts?: RequestOptions): Promise<ResultOutcome>;
    /** getPlayerRatings returns a player's ratings, league, fair-play flags and low-priority mark. */
    getPlayerRatings(playerId: string, opts?: RequestOptions): Promise<PlayerRatings>;
}
