import type { GenEnum, GenFile, GenMessage, GenService } from "@bufbuild/protobuf/codegenv2";
import type { Assignment, Match, Player } from "./ticket_pb.js";
import type { ListValue, Timestamp } from "@bufbuild/protobuf/wkt";
import type { Message } from "@bufbuild/protobuf";
/**
 * Describes the file cupid/v1/match.proto.
 */
export declare const file_cupid_v1_match: GenFile;
/**
 * MatchRecord is a match with its hand-off state.
 *
 * @generated from message cupid.v1.MatchRecord
 */
export type MatchRecord = Message<"cupid.v1.MatchRecord"> & {
    /**
     * @generated from field: cupid.v1.Match match = 1;
     */
    match?: Match | undefined;
    /**
     * @generated from field: cupid.v1.MatchState state = 2;
     */
    state: MatchState;
    /**
     * Set when assigned.
     *
     * @generated from field: cupid.v1.Assignment assignment = 3;
     */
    assignment?: Assignment | undefined;
    /**
     * @generated from field: google.protobuf.Timestamp updated_at = 4;
     */
    updatedAt?: Timestamp | undefined;
    /**
     * Why a released match was released.
     *
     * @generated from field: string reason = 5;
     */
    reason: string;
    /**
     * The players' answers to the match's ready check, in the order given
     * (GetMatch and AcceptMatch fill it).
     *
     * @generated from field: repeated cupid.v1.MatchAnswer answers = 6;
     */
    answers: MatchAnswer[];
    /**
     * How many players have accepted.
     *
     * @generated from field: int32 accepted = 7;
     */
    accepted: number;
};
/**
 * Describes the message cupid.v1.MatchRecord.
 * Use `create(MatchRecordSchema)` to create a new message.
 */
export declare const MatchRecordSchema: GenMessage<MatchRecord>;
/**
 * MatchAnswer is one player's answer to a ready check.
 *
 * @generated from message cupid.v1.MatchAnswer
 */
export type MatchAnswer = Message<"cupid.v1.MatchAnswer"> & {
    /**
     * @generated from field: string player_id = 1;
     */
    playerId: string;
    /**
     * @generated from field: bool accept = 2;
     */
    accept: boolean;
    /**
     * @generated from field: google.protobuf.Timestamp at = 3;
     */
    at?: Timestamp | undefined;
};
/**
 * Describes the message cupid.v1.MatchAnswer.
 * Use `create(MatchAnswerSchema)` to create a new message.
 */
export declare const MatchAnswerSchema: GenMessage<MatchAnswer>;
/**
 * MatchEvent is one entry of a queue's match log.
 *
 * @generated from message cupid.v1.MatchEvent
 */
export type MatchEvent = Message<"cupid.v1.MatchEvent"> & {
    /**
     * Increases across the server; resume after the last one handled.
     *
     * @generated from field: int64 seq = 1;
     */
    seq: bigint;
    /**
     * formed, assigned or released; for game sessions also backfilled,
     * backfill_opened, backfill_closed, left and ended.
     *
     * @generated from field: string kind = 2;
     */
    kind: string;
    /**
     * @generated from field: google.protobuf.Timestamp at = 3;
     */
    at?: Timestamp | undefined;
    /**
     * The whole match, on every kind.
     *
     * @generated from field: cupid.v1.Match match = 4;
     */
    match?: Match | undefined;
    /**
     * Set when kind is assigned.
     *
     * @generated from field: cupid.v1.Assignment assignment = 5;
     */
    assignment?: Assignment | undefined;
    /**
     * Set when kind is released.
     *
     * @generated from field: string reason = 6;
     */
    reason: string;
    /**
     * The newcomers, when kind is backfilled.
     *
     * @generated from field: repeated string ticket_ids = 10;
     */
    ticketIds: string[];
    /**
     * The newcomers' players when kind is backfilled; the leavers when kind
     * is left.
     *
     * @generated from field: repeated string player_ids = 11;
     */
    playerIds: string[];
};
/**
 * Describes the message cupid.v1.MatchEvent.
 * Use `create(MatchEventSchema)` to create a new message.
 */
export declare const MatchEventSchema: GenMessage<MatchEvent>;
/**
 * @generated from message cupid.v1.WatchMatchesRequest
 */
export type WatchMatchesRequest = Message<"cupid.v1.WatchMatchesRequest"> & {
    /**
     * @generated from field: string queue = 1;
     */
    queue: string;
    /**
     * Events with a sequence number above this; 0 for all of them.
     *
     * @generated from field: int64 after_seq = 2;
     */
    afterSeq: bigint;
};
/**
 * Describes the message cupid.v1.WatchMatchesRequest.
 * Use `create(WatchMatchesRequestSchema)` to create a new message.
 */
export declare const WatchMatchesRequestSchema: GenMessage<WatchMatchesRequest>;
/**
 * @generated from message cupid.v1.ListMatchesRequest
 */
export type ListMatchesRequest = Message<"cupid.v1.ListMatchesRequest"> & {
    /**
     * @generated from field: string queue = 1;
     */
    queue: string;
    /**
     * Only matches in this state; any when unspecified.
     *
     * @generated from field: cupid.v1.MatchState state = 2;
     */
    state: MatchState;
    /**
     * At most this many; 100 when zero, 1000 at most.
     *
     * @generated from field: int32 limit = 3;
     */
    limit: number;
};
/**
 * Describes the message cupid.v1.ListMatchesRequest.
 * Use `create(ListMatchesRequestSchema)` to create a new message.
 */
export declare const ListMatchesRequestSchema: GenMessage<ListMatchesRequest>;
/**
 * @generated from message cupid.v1.ListMatchesResponse
 */
export type ListMatchesResponse = Message<"cupid.v1.ListMatchesResponse"> & {
    /**
     * @generated from field: repeated cupid.v1.MatchRecord matches = 1;
     */
    matches: MatchRecord[];
};
/**
 * Describes the message cupid.v1.ListMatchesResponse.
 * Use `create(ListMatchesResponseSchema)` to create a new message.
 */
export declare const ListMatchesResponseSchema: GenMessage<ListMatchesResponse>;
/**
 * @generated from message cupid.v1.GetMatchRequest
 */
export type GetMatchRequest = Message<"cupid.v1.GetMatchRequest"> & {
    /**
     * @generated from field: string id = 1;
     */
    id: string;
};
/**
 * Describes the message cupid.v1.GetMatchRequest.
 * Use `create(GetMatchRequestSchema)` to create a new message.
 */
export declare const GetMatchRequestSchema: GenMessage<GetMatchRequest>;
/**
 * @generated from message cupid.v1.GetMatchResponse
 */
export type GetMatchResponse = Message<"cupid.v1.GetMatchResponse"> & {
    /**
     * @generated from field: cupid.v1.MatchRecord match = 1;
     */
    match?: MatchRecord | undefined;
};
/**
 * Describes the message cupid.v1.GetMatchResponse.
 * Use `create(GetMatchResponseSchema)` to create a new message.
 */
export declare const GetMatchResponseSchema: GenMessage<GetMatchResponse>;
/**
 * @generated from message cupid.v1.AssignMatchRequest
 */
export type AssignMatchRequest = Message<"cupid.v1.AssignMatchRequest"> & {
    /**
     * @generated from field: string id = 1;
     */
    id: string;
    /**
     * assigned_at is ignored: the server sets it.
     *
     * @generated from field: cupid.v1.Assignment assignment = 2;
     */
    assignment?: Assignment | undefined;
};
/**
 * Describes the message cupid.v1.AssignMatchRequest.
 * Use `create(AssignMatchRequestSchema)` to create a new message.
 */
export declare const AssignMatchRequestSchema: GenMessage<AssignMatchRequest>;
/**
 * @generated from message cupid.v1.AssignMatchResponse
 */
export type AssignMatchResponse = Message<"cupid.v1.AssignMatchResponse"> & {
    /**
     * @generated from field: cupid.v1.MatchRecord match = 1;
     */
    match?: MatchRecord | undefined;
};
/**
 * Describes the message cupid.v1.AssignMatchResponse.
 * Use `create(AssignMatchResponseSchema)` to create a new message.
 */
export declare const AssignMatchResponseSchema: GenMessage<AssignMatchResponse>;
/**
 * @generated from message cupid.v1.OpenBackfillRequest
 */
export type OpenBackfillRequest = Message<"cupid.v1.OpenBackfillRequest"> & {
    /**
     * @generated from field: string id = 1;
     */
    id: string;
    /**
     * The session's match options as its game server has them now (option
     * name -> a list of strings; the ruleset's match_options only): when
     * set, newcomers are compared with these instead of with the options
     * the session's players queued with.
     *
     * @generated from field: map<string, google.protobuf.ListValue> match_options = 2;
     */
    matchOptions: {
        [key: string]: ListValue;
    };
    /**
     * The session's teams as its game server has them now (AccelByte's
     * backfill ticket carries the same), when set: one entry per team of the
     * match, in its order, with the players in it now — players Cupid
     * matched and players the game server added itself — each with
     * attributes when the game server has them (as on tickets). They become
     * the session's teams: a player of the session who is absent has left
     * and his seat stays open; newcomers are compared with the attributes
     * given (players given without attributes, by their tickets'). Refused
     * with invalid_argument naming the field: another team count (teams), a
     * team over its seats (teams[i].players), a player twice or a bad id
     * (teams[i].players[j].id), bad attributes; with failed_precondition: a
     * player who is in another live match (teams[i].players[j].id), every
     * seat taken.
     *
     * @generated from field: repeated cupid.v1.BackfillTeam teams = 3;
     */
    teams: BackfillTeam[];
};
/**
 * Describes the message cupid.v1.OpenBackfillRequest.
 * Use `create(OpenBackfillRequestSchema)` to create a new message.
 */
export declare const OpenBackfillRequestSchema: GenMessage<OpenBackfillRequest>;
/**
 * BackfillTeam is one team of a game server's view of its session.
 *
 * @generated from message cupid.v1.BackfillTeam
 */
export type BackfillTeam = Message<"cupid.v1.BackfillTeam"> & {
    /**
     * @generated from field: repeated cupid.v1.Player players = 1;
     */
    players: Player[];
};
/**
 * Describes the message cupid.v1.BackfillTeam.
 * Use `create(BackfillTeamSchema)` to create a new message.
 */
export declare const BackfillTeamSchema: GenMessage<BackfillTeam>;
/**
 * @generated from message cupid.v1.OpenBackfillResponse
 */
export type OpenBackfillResponse = Message<"cupid.v1.OpenBackfillResponse"> & {
    /**
     * @generated from field: cupid.v1.MatchRecord match = 1;
     */
    match?: MatchRecord | undefined;
};
/**
 * Describes the message cupid.v1.OpenBackfillResponse.
 * Use `create(OpenBackfillResponseSchema)` to create a new message.
 */
export declare const OpenBackfillResponseSchema: GenMessage<OpenBackfillResponse>;
/**
 * @generated from message cupid.v1.CloseBackfillRequest
 */
export type CloseBackfillRequest = Message<"cupid.v1.CloseBackfillRequest"> & {
    /**
     * @generated from field: string id = 1;
     */
    id: string;
};
/**
 * Describes the message cupid.v1.CloseBackfillRequest.
 * Use `create(CloseBackfillRequestSchema)` to create a new message.
 */
export declare const CloseBackfillRequestSchema: GenMessage<CloseBackfillRequest>;
/**
 * @generated from message cupid.v1.CloseBackfillResponse
 */
export type CloseBackfillResponse = Message<"cupid.v1.CloseBackfillResponse"> & {
    /**
     * @generated from field: cupid.v1.MatchRecord match = 1;
     */
    match?: MatchRecord | undefined;
};
/**
 * Describes the message cupid.v1.CloseBackfillResponse.
 * Use `create(CloseBackfillResponseSchema)` to create a new message.
 */
export declare const CloseBackfillResponseSchema: GenMessage<CloseBackfillResponse>;
/**
 * @generated from message cupid.v1.ReportLeaversRequest
 */
export type ReportLeaversRequest = Message<"cupid.v1.ReportLeaversRequest"> & {
    /**
     * @generated from field: string id = 1;
     */
    id: string;
    /**
     * @generated from field: repeated string player_ids = 2;
     */
    playerIds: string[];
};
/**
 * Describes the message cupid.v1.ReportLeaversRequest.
 * Use `create(ReportLeaversRequestSchema)` to create a new message.
 */
export declare const ReportLeaversRequestSchema: GenMessage<ReportLeaversRequest>;
/**
 * @generated from message cupid.v1.ReportLeaversResponse
 */
export type ReportLeaversResponse = Message<"cupid.v1.ReportLeaversResponse"> & {
    /**
     * @generated from field: cupid.v1.MatchRecord match = 1;
     */
    match?: MatchRecord | undefined;
};
/**
 * Describes the message cupid.v1.ReportLeaversResponse.
 * Use `create(ReportLeaversResponseSchema)` to create a new message.
 */
export declare const ReportLeaversResponseSchema: GenMessage<ReportLeaversResponse>;
/**
 * @generated from message cupid.v1.EndSessionRequest
 */
export type EndSessionRequest = Message<"cupid.v1.EndSessionRequest"> & {
    /**
     * @generated from field: string id = 1;
     */
    id: string;
};
/**
 * Describes the message cupid.v1.EndSessionRequest.
 * Use `create(EndSessionRequestSchema)` to create a new message.
 */
export declare const EndSessionRequestSchema: GenMessage<EndSessionRequest>;
/**
 * @generated from message cupid.v1.EndSessionResponse
 */
export type EndSessionResponse = Message<"cupid.v1.EndSessionResponse"> & {
    /**
     * @generated from field: cupid.v1.MatchRecord match = 1;
     */
    match?: MatchRecord | undefined;
};
/**
 * Describes the message cupid.v1.EndSessionResponse.
 * Use `create(EndSessionResponseSchema)` to create a new message.
 */
export declare const EndSessionResponseSchema: GenMessage<EndSessionResponse>;
/**
 * @generated from message cupid.v1.AcceptMatchRequest
 */
export type AcceptMatchRequest = Message<"cupid.v1.AcceptMatchRequest"> & {
    /**
     * @generated from field: string id = 1;
     */
    id: string;
    /**
     * @generated from field: string player_id = 2;
     */
    playerId: string;
    /**
     * True to accept the match, false to decline it.
     *
     * @generated from field: bool accept = 3;
     */
    accept: boolean;
};
/**
 * Describes the message cupid.v1.AcceptMatchRequest.
 * Use `create(AcceptMatchRequestSchema)` to create a new message.
 */
export declare const AcceptMatchRequestSchema: GenMessage<AcceptMatchRequest>;
/**
 * @generated from message cupid.v1.AcceptMatchResponse
 */
export type AcceptMatchResponse = Message<"cupid.v1.AcceptMatchResponse"> & {
    /**
     * @generated from field: cupid.v1.MatchRecord match = 1;
     */
    match?: MatchRecord | undefined;
};
/**
 * Describes the message cupid.v1.AcceptMatchResponse.
 * Use `create(AcceptMatchResponseSchema)` to create a new message.
 */
export declare const AcceptMatchResponseSchema: GenMessage<AcceptMatchResponse>;
/**
 * MatchState is where a match is in its hand-off.
 *
 * @generated from enum cupid.v1.MatchState
 */
export declare enum MatchState {
    /**
     * @generated from enum value: MATCH_STATE_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * Formed: waiting for a backend to assign it.
     *
     * @generated from enum value: MATCH_STATE_FORMED = 1;
     */
    FORMED = 1,
    /**
     * Assigned: its players may connect.
     *
     * @generated from enum value: MATCH_STATE_ASSIGNED = 2;
     */
    ASSIGNED = 2,
    /**
     * Released: not assigned in time; its tickets were requeued or cancelled.
     *
     * @generated from enum value: MATCH_STATE_RELEASED = 3;
     */
    RELEASED = 3,
    /**
     * Pending: waiting for its players to accept it (a queue with a ready
     * check); not yet in the backends' match stream.
     *
     * @generated from enum value: MATCH_STATE_PENDING = 4;
     */
    PENDING = 4,
    /**
     * Ended: its backend ended the game session.
     *
     * @generated from enum value: MATCH_STATE_ENDED = 5;
     */
    ENDED = 5
}
/**
 * Describes the enum cupid.v1.MatchState.
 */
export declare const MatchStateSchema: GenEnum<MatchState>;
/**
 * MatchService hands formed matches to the game's backend (a director, a
 * server allocator): it follows a queue's matches as a stream, places each
 * on a game server and assigns it; the players' ticket watchers then hear
 * where to connect. Backends call it with a server key that has the
 * tickets scope; a player may read a match he is in.
 *
 * @generated from service cupid.v1.MatchService
 */
export declare const MatchService: GenService<{
    /**
     * WatchMatches streams a queue's match events — formed, assigned,
     * released — first those after after_seq that are stored, then new ones
     * as they are stored, in sequence order, each once. A backend that
     * restarts resumes with the last seq it handled and misses nothing.
     *
     * @generated from rpc cupid.v1.MatchService.WatchMatches
     */
    watchMatches: {
        methodKind: "server_streaming";
        input: typeof WatchMatchesRequestSchema;
        output: typeof MatchEventSchema;
    };
    /**
     * ListMatches lists a queue's matches, oldest first.
     *
     * @generated from rpc cupid.v1.MatchService.ListMatches
     */
    listMatches: {
        methodKind: "unary";
        input: typeof ListMatchesRequestSchema;
        output: typeof ListMatchesResponseSchema;
    };
    /**
     * GetMatch returns a match with its state and assignment.
     *
     * @generated from rpc cupid.v1.MatchService.GetMatch
     */
    getMatch: {
        methodKind: "unary";
        input: typeof GetMatchRequestSchema;
        output: typeof GetMatchResponseSchema;
    };
    /**
     * AssignMatch records where a formed match is played. A match is
     * assigned once: assigning it again, or assigning a released match, is
     * refused with failed_precondition; an unknown match with not_found.
     *
     * @generated from rpc cupid.v1.MatchService.AssignMatch
     */
    assignMatch: {
        methodKind: "unary";
        input: typeof AssignMatchRequestSchema;
        output: typeof AssignMatchResponseSchema;
    };
    /**
     * OpenBackfill opens a live game session (a formed or assigned match) to
     * backfill: waiting tickets of its queue join it, before new matches
     * form, until its seats are full. A session over, full or without
     * seats: failed_precondition.
     *
     * @generated from rpc cupid.v1.MatchService.OpenBackfill
     */
    openBackfill: {
        methodKind: "unary";
        input: typeof OpenBackfillRequestSchema;
        output: typeof OpenBackfillResponseSchema;
    };
    /**
     * CloseBackfill stops backfill into a session; one not open:
     * failed_precondition.
     *
     * @generated from rpc cupid.v1.MatchService.CloseBackfill
     */
    closeBackfill: {
        methodKind: "unary";
        input: typeof CloseBackfillRequestSchema;
        output: typeof CloseBackfillResponseSchema;
    };
    /**
     * ReportLeavers records players who left a session. Within the queue's
     * leaver_window of the assignment their seats stay and backfill opens;
     * after it their seats close. A player not in the session:
     * failed_precondition, and nobody leaves.
     *
     * @generated from rpc cupid.v1.MatchService.ReportLeavers
     */
    reportLeavers: {
        methodKind: "unary";
        input: typeof ReportLeaversRequestSchema;
        output: typeof ReportLeaversResponseSchema;
    };
    /**
     * EndSession ends a session (state ended); ending it twice:
     * failed_precondition.
     *
     * @generated from rpc cupid.v1.MatchService.EndSession
     */
    endSession: {
        methodKind: "unary";
        input: typeof EndSessionRequestSchema;
        output: typeof EndSessionResponseSchema;
    };
    /**
     * AcceptMatch answers a pending match's ready check for one player:
     * accept, or decline. A player token answers only for its own player; a
     * server key with the tickets scope for anyone. When every player has
     * accepted the match is formed; one decline releases it (the others go
     * back to waiting with their age). The same answer twice is harmless.
     * Unknown match: not_found; a player not in it: invalid_argument
     * (player_id); a match no longer pending, or a changed answer:
     * failed_precondition.
     *
     * @generated from rpc cupid.v1.MatchService.AcceptMatch
     */
    acceptMatch: {
        methodKind: "unary";
        input: typeof AcceptMatchRequestSchema;
        output: typeof AcceptMatchResponseSchema;
    };
}>;
