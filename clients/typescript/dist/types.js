// The client's own types: plain objects with plain attribute values, Dates
// and numbers, and the conversions from the generated messages. Callers
// never handle protobuf Values, Timestamps or bigints.
import { timestampDate, durationMs } from "./wkt.js";
import * as pb from "./gen/cupid/v1/ticket_pb.js";
import * as mpb from "./gen/cupid/v1/match_pb.js";
import { fromValues } from "./values.js";
import { toJson } from "@bufbuild/protobuf";
import { ListValueSchema } from "@bufbuild/protobuf/wkt";
function date(t) {
    return t ? timestampDate(t) : undefined;
}
const ticketStates = {
    [pb.TicketState.WAITING]: "waiting",
    [pb.TicketState.MATCHED]: "matched",
    [pb.TicketState.CANCELLED]: "cancelled",
    [pb.TicketState.EXPIRED]: "expired",
};
const matchStates = {
    [mpb.MatchState.PENDING]: "pending",
    [mpb.MatchState.FORMED]: "formed",
    [mpb.MatchState.ASSIGNED]: "assigned",
    [mpb.MatchState.RELEASED]: "released",
    [mpb.MatchState.ENDED]: "ended",
};
/** matchStateNumber is the enum value of a state name, for ListMatches. */
export function matchStateNumber(s) {
    for (const [n, name] of Object.entries(matchStates)) {
        if (name === s)
            return Number(n);
    }
    return mpb.MatchState.UNSPECIFIED;
}
export function ticketFrom(t) {
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
export function matchFrom(m) {
    const options = {};
    for (const [name, list] of Object.entries(m.backfillOptions)) {
        options[name] = toJson(ListValueSchema, list);
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
export function assignmentFrom(a) {
    if (!a)
        return undefined;
    return { server: a.server, sessionId: a.sessionId, connection: { ...a.connection }, assignedAt: date(a.assignedAt) };
}
export function ticketEventFrom(e) {
    return {
        seq: Number(e.seq),
        ticketId: e.ticketId,
        kind: e.kind,
        at: date(e.at),
        match: e.match ? matchFrom(e.match) : undefined,
        reason: e.reason,
        assignment: assignmentFrom(e.assignment),
    };
}
const emptyMatch = () => ({
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
export function matchRecordFrom(r) {
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
export function matchEventFrom(e) {
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
function flagsFrom(f) {
    return f ? { tanking: f.tanking, smurf: f.smurf, ease: f.ease, why: [...f.why] } : undefined;
}
export function ratingChangeFrom(c) {
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
export function playerRatingsFrom(r) {
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
