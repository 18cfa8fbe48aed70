import * as pb from "./gen/cupid/v1/ticket_pb.js";
import * as mpb from "./gen/cupid/v1/match_pb.js";
import * as rpb from "./gen/cupid/v1/rating_pb.js";
import { type Attributes } from "./values.js";
/** A player of a ticket: one person, with the attributes the queue's ruleset reads. */
export interface Player {
    id: string;
    attributes?: Attributes;
}
/** What createTicket and createTickets send for one ticket. */
export interface TicketRequest {
    /** The queue's name, as in the server's configuration. */
    queue: string;
    /** One player, or a party kept together on one team. */
    players: Player[];
    /** Round-trip time in milliseconds to each region. */
    latencies?: Record<string, number>;
    /** Ticket-wide values, such as match options. */
    attributes?: Attributes;
    /** Makes the create idempotent: the same request again returns the first ticket. */
    requestId?: string;
    /** The game server's version; tickets of different versions never meet. */
    version?: string;
    /** Splits the queue further (a game mode, say). */
    customKey?: string;
    /** Cancel the players' live tickets in this queue and take their place. */
    replace?: boolean;
}
export type TicketState = "waiting" | "matched" | "cancelled" | "expired" | "unspecified";
export interface Ticket {
    id: string;
    queue: string;
    version: string;
    customKey: string;
    players: {
        id: string;
        attributes: Attributes;
    }[];
    latencies: Record<string, number>;
    attributes: Attributes;
    requestId: string;
    state: TicketState;
    createdAt?: Date;
    expiresAt?: Date;
    /** How long it waited, in milliseconds: until now while waiting, else until it was settled. */
    waitedMs: number;
    matchId: string;
    match?: Match;
    /** Why a waiting ticket is still waiting. */
    why?: WaitExplanation;
    /** Why the server ended the ticket, when it did. */
    reason: string;
}
export interface WaitExplanation {
    summary: string;
    blocks: {
        rule: string;
        excluded: number;
        detail: string;
    }[];
    nextRelaxation?: Date;
    candidates: number;
}
export interface Team {
    ticketIds: string[];
    playerIds: string[];
}
export interface Match {
    id: string;
    queue: string;
    teams: Team[];
    quality?: {
        score: number;
        parts: Record<string, number>;
    };
    createdAt?: Date;
    /** Where to host the match; empty when the ruleset has no latency rules. */
    region: string;
    roles: Record<string, string>;
    /** How many players each team holds at most. */
    seats: number[];
    /** Whether the session is open to backfill. */
    backfill: boolean;
    left: {
        playerId: string;
        team: number;
        at?: Date;
        replaced: boolean;
    }[];
    /** The match options a backend gave when it opened backfill. */
    backfillOptions: Record<string, string[]>;
    /** The ready check's deadline, in a queue with acceptance. */
    acceptBy?: Date;
}
/** Where a match is played, as the backend that placed it says. */
export interface Assignment {
    /** The address players connect to (host:port, a URL …). */
    server: string;
    sessionId?: string;
    /** Free-form data the game's clients read (a join token, a port …). */
    connection?: Record<string, string>;
    /** When it was assigned (set by the server). */
    assignedAt?: Date;
}
/**
 * The kinds of a ticket's events. The final one is matched (or assigned
 * when waiting for the assignment), cancelled or expired; proposed and
 * requeued come with ready checks and released matches.
 */
export type TicketEventKind = "created" | "proposed" | "matched" | "assigned" | "requeued" | "cancelled" | "expired";
export interface TicketEvent {
    /** The event's sequence number; a watch resumes after the last one it delivered. */
    seq: number;
    ticketId: string;
    kind: TicketEventKind;
    at?: Date;
    /** Set when kind is proposed or matched (and on assigned). */
    match?: Match;
    /** Why the server ended the ticket, or why its match was released (requeued). */
    reason: string;
    /** Set when kind is assigned: where the match is played. */
    assignment?: Assignment;
}
export type MatchState = "pending" | "formed" | "assigned" | "released" | "ended" | "unspecified";
export interface MatchRecord {
    match: Match;
    state: MatchState;
    assignment?: Assignment;
    updatedAt?: Date;
    /** Why a released match was released. */
    reason: string;
    /** The players' answers to the ready check, in the order given. */
    answers: {
        playerId: string;
        accept: boolean;
        at?: Date;
    }[];
    accepted: number;
}
/**
 * One entry of a queue's match log: formed, assigned, released, and for
 * game sessions backfilled, backfill_opened, backfill_closed, left, ended.
 */
export interface MatchEvent {
    seq: number;
    kind: string;
    at?: Date;
    match: Match;
    assignment?: Assignment;
    reason: string;
    /** The newcomers when kind is backfilled. */
    ticketIds: string[];
    /** The newcomers' players when backfilled; the leavers when left. */
    playerIds: string[];
}
/** A match's result, as ReportResult takes it (docs/ratings.md). */
export interface MatchResult {
    /** One place per team, in the match's team order; lower is better, equal places tie. */
    teamPlaces?: number[];
    /** Or a place for every player: a free-for-all. */
    playerPlaces?: Record<string, number>;
    teamScores?: number[];
    playerScores?: Record<string, number>;
    /** Players who left before the end. */
    leavers?: string[];
}
export interface FairPlayFlags {
    tanking: boolean;
    smurf: boolean;
    ease: number;
    why: string[];
}
export interface RatingChange {
    playerId: string;
    team: number;
    place: number;
    score: number;
    expected: number;
    leaver: boolean;
    before: number;
    after: number;
    pending: number;
    leagueBefore: string;
    leagueAfter: string;
    flags?: FairPlayFlags;
    matchId: string;
    at?: Date;
    seq: number;
}
export interface ResultOutcome {
    rating: string;
    changes: RatingChange[];
    /** True when the match had this result already (nothing changed now). */
    repeated: boolean;
}
export interface PlayerRating {
    rating: string;
    /** The conservative value leagues and matchmaking read. */
    value: number;
    mu: number;
    sigma: number;
    glickoRating: number;
    glickoDeviation: number;
    glickoVolatility: number;
    league: string;
    division: number;
    games: number;
    wins: number;
    losses: number;
    draws: number;
    leaves: number;
    flags?: FairPlayFlags;
    /** The skill his tickets carry now. */
    matchmaking: number;
}
export interface PlayerRatings {
    playerId: string;
    ratings: PlayerRating[];
    lowPriority?: {
        until?: Date;
        games: number;
        reason: string;
        setAt?: Date;
    };
}
/** matchStateNumber is the enum value of a state name, for ListMatches. */
export declare function matchStateNumber(s: MatchState | undefined): mpb.MatchState;
export declare function ticketFrom(t: pb.Ticket): Ticket;
export declare function matchFrom(m: pb.Match): Match;
export declare function assignmentFrom(a: pb.Assignment | undefined): Assignment | undefined;
export declare function ticketEventFrom(e: pb.TicketEvent): TicketEvent;
export declare function matchRecordFrom(r: mpb.MatchRecord | undefined): MatchRecord;
export declare function matchEventFrom(e: mpb.MatchEvent): MatchEvent;
export declare function ratingChangeFrom(c: rpb.RatingChange): RatingChange;
export declare function playerRatingsFrom(r: rpb.GetPlayerRatingsResponse): PlayerRatings;
