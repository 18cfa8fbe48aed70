// The client's own types: plain objects with plain attribute values, Dates
// and numbers, and the conversions from the generated messages. Callers
// never handle protobuf Values, Timestamps or bigints.

import { timestampDate, durationMs, type Timestamp } from "./wkt.js";
import * as pb from "./gen/cupid/v1/ticket_pb.js";
import * as mpb from "./gen/cupid/v1/match_pb.js";
import * as rpb from "./gen/cupid/v1/rating_pb.js";
import { fromValues, type Attributes } from "./values.js";
import { toJson } from "@bufbuild/protobuf";
import { ListValueSchema } from "@bufbuild/protobuf/wkt";

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
  players: { id: string; attributes: Attributes }[];
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
  blocks: { rule: string; excluded: number; detail: string }[];
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
  quality?: { score: number; parts: Record<string, number> };
  createdAt?: Date;
  /** Where to host the match; empty when the ruleset has no latency rules. */
  region: string;
  roles: Record<string, string>;
  /** How many players each team holds at most. */
  seats: number[];
  /** Whether the session is open to backfill. */
  backfill: boolean;
  left: { playerId: string; team: number; at?: Date; replaced: boolean }[];
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
  answers: { playerId: string; accept: boolean; at?: Date }[];
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
  lowPriority?: { until?: Date; games: number; reason: string; setAt?: Date };
}

function date(t: Timestamp | undefined): Date | undefined {
  return t ? timestampDate(t) : undefined;
}

const ticketStates: Record<number, TicketState> = {
  [pb.TicketState.WAITING]: "waiting",
  [pb.TicketState.MATCHED]: "matched",
  [pb.TicketState.CANCELLED]: "cancelled",
  [pb.TicketState.EXPIRED]: "expired",
};

const matchStates: Record<number, MatchState> = {
  [mpb.MatchState.PENDING]: "pending",
  [mpb.MatchState.FORMED]: "formed",
  [mpb.MatchState.ASSIGNED]: "assigned",
  [mpb.MatchState.RELEASED]: "released",
  [mpb.MatchState.ENDED]: "ended",
};

/** matchStateNumber is the enum value of a state name, for ListMatches. */
export function matchStateNumber(s: MatchState | undefined): mpb.MatchState {
  for (const [n, name] of Object.entries(matchStates)) {
    if (name === s) return Number(n) as mpb.MatchState;
  }
  return mpb.MatchState.UNSPECIFIED;
}

export function ticketFrom(t: pb.Ticket): Ticket {
  return {
    id: t.id,
    queue: t.queue,
    version: t.version,
    customKey: t.customKey,
    players: t.players.map((p) => ({ id: p.id, attributes: fromValues(p.attributes) })),
    latencies: { ...t.latencies },
    attributes: fromValues(t.attributes),
    requestId: t.requestId,
    state: ticketStates[t.state] ?? "unspecified",
    createdAt: date(t.createdAt),
    expiresAt: date(t.expiresAt),
    waitedMs: t.waited ? durationMs(t.waited) : 0,
    matchId: t.matchId,
    match: t.match ? matchFrom(t.match) : undefined,
    why: t.why
      ? {
          summary: t.why.summary,
          blocks: t.why.blocks.map((b) => ({ rule: b.rule, excluded: Number(b.excluded), detail: b.detail })),
          nextRelaxation: date(t.why.nextRelaxation),
          candidates: Number(t.why.candidates),
        }
      : undefined,
    reason: t.reason,
  };
}

export function matchFrom(m: pb.Match): Match {
  const options: Record<string, string[]> = {};
  for (const [name, list] of Object.entries(m.backfillOptions)) {
    options[name] = toJson(ListValueSchema, list) as string[];
  }
  return {
    id: m.id,
    queue: m.queue,
    teams: m.teams.map((t) => ({ ticketIds: [...t.ticketIds], playerIds: [...t.playerIds] })),
    quality: m.quality ? { score: m.quality.score, parts: { ...m.quality.parts } } : undefined,
    createdAt: date(m.createdAt),
    region: m.region,
    roles: { ...m.roles },
    seats: [...m.seats],
    backfill: m.backfill,
    left: m.left.map((l) => ({ playerId: l.playerId, team: l.team, at: date(l.at), replaced: l.replaced })),
    backfillOptions: options,
    acceptBy: date(m.acceptBy),
  };
}

export function assignmentFrom(a: pb.Assignment | undefined): Assignment | undefined {
  if (!a) return undefined;
  return { server: a.server, sessionId: a.sessionId, connection: { ...a.connection }, assignedAt: date(a.assignedAt) };
}

export function ticketEventFrom(e: pb.TicketEvent): TicketEvent {
  return {
    seq: Number(e.seq),
    ticketId: e.ticketId,
    kind: e.kind as TicketEventKind,
    at: date(e.at),
    match: e.match ? matchFrom(e.match) : undefined,
    reason: e.reason,
    assignment: assignmentFrom(e.assignment),
  };
}

const emptyMatch = (): Match => ({
  id: "",
  queue: "",
  teams: [],
  region: "",
  roles: {},
  seats: [],
  backfill: false,
  left: [],
  backfillOptions: {},
});

export function matchRecordFrom(r: mpb.MatchRecord | undefined): MatchRecord {
  return {
    match: r?.match ? matchFrom(r.match) : emptyMatch(),
    state: (r && matchStates[r.state]) ?? "unspecified",
    assignment: assignmentFrom(r?.assignment),
    updatedAt: date(r?.updatedAt),
    reason: r?.reason ?? "",
    answers: (r?.answers ?? []).map((a) => ({ playerId: a.playerId, accept: a.accept, at: date(a.at) })),
    accepted: r?.accepted ?? 0,
  };
}

export function matchEventFrom(e: mpb.MatchEvent): MatchEvent {
  return {
    seq: Number(e.seq),
    kind: e.kind,
    at: date(e.at),
    match: e.match ? matchFrom(e.match) : emptyMatch(),
    assignment: assignmentFrom(e.assignment),
    reason: e.reason,
    ticketIds: [...e.ticketIds],
    playerIds: [...e.playerIds],
  };
}

function flagsFrom(f: rpb.FairPlayFlags | undefined): FairPlayFlags | undefined {
  return f ? { tanking: f.tanking, smurf: f.smurf, ease: f.ease, why: [...f.why] } : undefined;
}

export function ratingChangeFrom(c: rpb.RatingChange): RatingChange {
  return {
    playerId: c.playerId,
    team: c.team,
    place: c.place,
    score: c.score,
    expected: c.expected,
    leaver: c.leaver,
    before: c.before,
    after: c.after,
    pending: c.pending,
    leagueBefore: c.leagueBefore,
    leagueAfter: c.leagueAfter,
    flags: flagsFrom(c.flags),
    matchId: c.matchId,
    at: date(c.at),
    seq: Number(c.seq),
  };
}

export function playerRatingsFrom(r: rpb.GetPlayerRatingsResponse): PlayerRatings {
  return {
    playerId: r.playerId,
    ratings: r.ratings.map((p) => ({
      rating: p.rating,
      value: p.value,
      mu: p.mu,
      sigma: p.sigma,
      glickoRating: p.glickoRating,
      glickoDeviation: p.glickoDeviation,
      glickoVolatility: p.glickoVolatility,
      league: p.league,
      division: p.division,
      games: p.games,
      wins: p.wins,
      losses: p.losses,
      draws: p.draws,
      leaves: p.leaves,
      flags: flagsFrom(p.flags),
      matchmaking: p.matchmaking,
    })),
    lowPriority: r.lowPriority
      ? {
          until: date(r.lowPriority.until),
          games: r.lowPriority.games,
          reason: r.lowPriority.reason,
          setAt: date(r.lowPriority.setAt),
        }
      : undefined,
  };
}
