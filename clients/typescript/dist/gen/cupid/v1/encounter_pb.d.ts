import type { GenFile, GenMessage, GenService } from "@bufbuild/protobuf/codegenv2";
import type { Duration, Timestamp } from "@bufbuild/protobuf/wkt";
import type { Message } from "@bufbuild/protobuf";
/**
 * Describes the file cupid/v1/encounter.proto.
 */
export declare const file_cupid_v1_encounter: GenFile;
/**
 * Encounter is one player's view of one meeting.
 *
 * @generated from message cupid.v1.Encounter
 */
export type Encounter = Message<"cupid.v1.Encounter"> & {
    /**
     * The other player.
     *
     * @generated from field: string other_id = 1;
     */
    otherId: string;
    /**
     * queue, opponent or pairing.
     *
     * @generated from field: string mode = 2;
     */
    mode: string;
    /**
     * opponent or teammate; attacker or defender in an attack.
     *
     * @generated from field: string side = 3;
     */
    side: string;
    /**
     * The queue, the opponent finder or the speed-dating event.
     *
     * @generated from field: string place = 4;
     */
    place: string;
    /**
     * The match, the attack or the round.
     *
     * @generated from field: string ref = 5;
     */
    ref: string;
    /**
     * @generated from field: google.protobuf.Timestamp at = 6;
     */
    at?: Timestamp | undefined;
    /**
     * @generated from field: string outcome = 7;
     */
    outcome: string;
};
/**
 * Describes the message cupid.v1.Encounter.
 * Use `create(EncounterSchema)` to create a new message.
 */
export declare const EncounterSchema: GenMessage<Encounter>;
/**
 * @generated from message cupid.v1.ListEncountersRequest
 */
export type ListEncountersRequest = Message<"cupid.v1.ListEncountersRequest"> & {
    /**
     * @generated from field: string player_id = 1;
     */
    playerId: string;
    /**
     * At most this many (the history's recent count when 0 or above it).
     *
     * @generated from field: int32 limit = 2;
     */
    limit: number;
};
/**
 * Describes the message cupid.v1.ListEncountersRequest.
 * Use `create(ListEncountersRequestSchema)` to create a new message.
 */
export declare const ListEncountersRequestSchema: GenMessage<ListEncountersRequest>;
/**
 * @generated from message cupid.v1.ListEncountersResponse
 */
export type ListEncountersResponse = Message<"cupid.v1.ListEncountersResponse"> & {
    /**
     * @generated from field: repeated cupid.v1.Encounter encounters = 1;
     */
    encounters: Encounter[];
};
/**
 * Describes the message cupid.v1.ListEncountersResponse.
 * Use `create(ListEncountersResponseSchema)` to create a new message.
 */
export declare const ListEncountersResponseSchema: GenMessage<ListEncountersResponse>;
/**
 * ListEntry is one entry of a player's own block or avoid list.
 *
 * @generated from message cupid.v1.ListEntry
 */
export type ListEntry = Message<"cupid.v1.ListEntry"> & {
    /**
     * @generated from field: string other_id = 1;
     */
    otherId: string;
    /**
     * An avoid entry's weight; 0 on a block.
     *
     * @generated from field: double weight = 2;
     */
    weight: number;
    /**
     * @generated from field: google.protobuf.Timestamp at = 3;
     */
    at?: Timestamp | undefined;
};
/**
 * Describes the message cupid.v1.ListEntry.
 * Use `create(ListEntrySchema)` to create a new message.
 */
export declare const ListEntrySchema: GenMessage<ListEntry>;
/**
 * @generated from message cupid.v1.BlockRequest
 */
export type BlockRequest = Message<"cupid.v1.BlockRequest"> & {
    /**
     * @generated from field: string player_id = 1;
     */
    playerId: string;
    /**
     * @generated from field: string other_id = 2;
     */
    otherId: string;
};
/**
 * Describes the message cupid.v1.BlockRequest.
 * Use `create(BlockRequestSchema)` to create a new message.
 */
export declare const BlockRequestSchema: GenMessage<BlockRequest>;
/**
 * @generated from message cupid.v1.BlockResponse
 */
export type BlockResponse = Message<"cupid.v1.BlockResponse"> & {
    /**
     * @generated from field: cupid.v1.ListEntry entry = 1;
     */
    entry?: ListEntry | undefined;
};
/**
 * Describes the message cupid.v1.BlockResponse.
 * Use `create(BlockResponseSchema)` to create a new message.
 */
export declare const BlockResponseSchema: GenMessage<BlockResponse>;
/**
 * @generated from message cupid.v1.UnblockRequest
 */
export type UnblockRequest = Message<"cupid.v1.UnblockRequest"> & {
    /**
     * @generated from field: string player_id = 1;
     */
    playerId: string;
    /**
     * @generated from field: string other_id = 2;
     */
    otherId: string;
};
/**
 * Describes the message cupid.v1.UnblockRequest.
 * Use `create(UnblockRequestSchema)` to create a new message.
 */
export declare const UnblockRequestSchema: GenMessage<UnblockRequest>;
/**
 * @generated from message cupid.v1.UnblockResponse
 */
export type UnblockResponse = Message<"cupid.v1.UnblockResponse"> & {};
/**
 * Describes the message cupid.v1.UnblockResponse.
 * Use `create(UnblockResponseSchema)` to create a new message.
 */
export declare const UnblockResponseSchema: GenMessage<UnblockResponse>;
/**
 * @generated from message cupid.v1.ListBlocksRequest
 */
export type ListBlocksRequest = Message<"cupid.v1.ListBlocksRequest"> & {
    /**
     * @generated from field: string player_id = 1;
     */
    playerId: string;
};
/**
 * Describes the message cupid.v1.ListBlocksRequest.
 * Use `create(ListBlocksRequestSchema)` to create a new message.
 */
export declare const ListBlocksRequestSchema: GenMessage<ListBlocksRequest>;
/**
 * @generated from message cupid.v1.ListBlocksResponse
 */
export type ListBlocksResponse = Message<"cupid.v1.ListBlocksResponse"> & {
    /**
     * @generated from field: repeated cupid.v1.ListEntry entries = 1;
     */
    entries: ListEntry[];
};
/**
 * Describes the message cupid.v1.ListBlocksResponse.
 * Use `create(ListBlocksResponseSchema)` to create a new message.
 */
export declare const ListBlocksResponseSchema: GenMessage<ListBlocksResponse>;
/**
 * @generated from message cupid.v1.AvoidRequest
 */
export type AvoidRequest = Message<"cupid.v1.AvoidRequest"> & {
    /**
     * @generated from field: string player_id = 1;
     */
    playerId: string;
    /**
     * @generated from field: string other_id = 2;
     */
    otherId: string;
    /**
     * @generated from field: double weight = 3;
     */
    weight: number;
};
/**
 * Describes the message cupid.v1.AvoidRequest.
 * Use `create(AvoidRequestSchema)` to create a new message.
 */
export declare const AvoidRequestSchema: GenMessage<AvoidRequest>;
/**
 * @generated from message cupid.v1.AvoidResponse
 */
export type AvoidResponse = Message<"cupid.v1.AvoidResponse"> & {
    /**
     * @generated from field: cupid.v1.ListEntry entry = 1;
     */
    entry?: ListEntry | undefined;
};
/**
 * Describes the message cupid.v1.AvoidResponse.
 * Use `create(AvoidResponseSchema)` to create a new message.
 */
export declare const AvoidResponseSchema: GenMessage<AvoidResponse>;
/**
 * @generated from message cupid.v1.UnavoidRequest
 */
export type UnavoidRequest = Message<"cupid.v1.UnavoidRequest"> & {
    /**
     * @generated from field: string player_id = 1;
     */
    playerId: string;
    /**
     * @generated from field: string other_id = 2;
     */
    otherId: string;
};
/**
 * Describes the message cupid.v1.UnavoidRequest.
 * Use `create(UnavoidRequestSchema)` to create a new message.
 */
export declare const UnavoidRequestSchema: GenMessage<UnavoidRequest>;
/**
 * @generated from message cupid.v1.UnavoidResponse
 */
export type UnavoidResponse = Message<"cupid.v1.UnavoidResponse"> & {};
/**
 * Describes the message cupid.v1.UnavoidResponse.
 * Use `create(UnavoidResponseSchema)` to create a new message.
 */
export declare const UnavoidResponseSchema: GenMessage<UnavoidResponse>;
/**
 * @generated from message cupid.v1.ListAvoidsRequest
 */
export type ListAvoidsRequest = Message<"cupid.v1.ListAvoidsRequest"> & {
    /**
     * @generated from field: string player_id = 1;
     */
    playerId: string;
};
/**
 * Describes the message cupid.v1.ListAvoidsRequest.
 * Use `create(ListAvoidsRequestSchema)` to create a new message.
 */
export declare const ListAvoidsRequestSchema: GenMessage<ListAvoidsRequest>;
/**
 * @generated from message cupid.v1.ListAvoidsResponse
 */
export type ListAvoidsResponse = Message<"cupid.v1.ListAvoidsResponse"> & {
    /**
     * @generated from field: repeated cupid.v1.ListEntry entries = 1;
     */
    entries: ListEntry[];
};
/**
 * Describes the message cupid.v1.ListAvoidsResponse.
 * Use `create(ListAvoidsResponseSchema)` to create a new message.
 */
export declare const ListAvoidsResponseSchema: GenMessage<ListAvoidsResponse>;
/**
 * @generated from message cupid.v1.CheckPlayersRequest
 */
export type CheckPlayersRequest = Message<"cupid.v1.CheckPlayersRequest"> & {
    /**
     * @generated from field: repeated string player_ids = 1;
     */
    playerIds: string[];
};
/**
 * Describes the message cupid.v1.CheckPlayersRequest.
 * Use `create(CheckPlayersRequestSchema)` to create a new message.
 */
export declare const CheckPlayersRequestSchema: GenMessage<CheckPlayersRequest>;
/**
 * @generated from message cupid.v1.CheckPlayersResponse
 */
export type CheckPlayersResponse = Message<"cupid.v1.CheckPlayersResponse"> & {
    /**
     * True when two of the players must never meet; the first such pair
     * in the order given.
     *
     * @generated from field: bool blocked = 1;
     */
    blocked: boolean;
    /**
     * @generated from field: repeated string pair = 2;
     */
    pair: string[];
};
/**
 * Describes the message cupid.v1.CheckPlayersResponse.
 * Use `create(CheckPlayersResponseSchema)` to create a new message.
 */
export declare const CheckPlayersResponseSchema: GenMessage<CheckPlayersResponse>;
/**
 * EncounterTeam is one side of a recorded meeting.
 *
 * @generated from message cupid.v1.EncounterTeam
 */
export type EncounterTeam = Message<"cupid.v1.EncounterTeam"> & {
    /**
     * @generated from field: repeated string player_ids = 1;
     */
    playerIds: string[];
};
/**
 * Describes the message cupid.v1.EncounterTeam.
 * Use `create(EncounterTeamSchema)` to create a new message.
 */
export declare const EncounterTeamSchema: GenMessage<EncounterTeam>;
/**
 * @generated from message cupid.v1.RecordEncounterRequest
 */
export type RecordEncounterRequest = Message<"cupid.v1.RecordEncounterRequest"> & {
    /**
     * queue, opponent or pairing (an attack: two teams of one, the attacker
     * first).
     *
     * @generated from field: string mode = 1;
     */
    mode: string;
    /**
     * @generated from field: string place = 2;
     */
    place: string;
    /**
     * What the meeting was (a match id): recording the same ref again
     * stores nothing more.
     *
     * @generated from field: string ref = 3;
     */
    ref: string;
    /**
     * When; now when left out.
     *
     * @generated from field: google.protobuf.Timestamp at = 4;
     */
    at?: Timestamp | undefined;
    /**
     * @generated from field: repeated cupid.v1.EncounterTeam teams = 5;
     */
    teams: EncounterTeam[];
    /**
     * A player's outcome (win, loss, draw), by player id.
     *
     * @generated from field: map<string, string> outcomes = 6;
     */
    outcomes: {
        [key: string]: string;
    };
};
/**
 * Describes the message cupid.v1.RecordEncounterRequest.
 * Use `create(RecordEncounterRequestSchema)` to create a new message.
 */
export declare const RecordEncounterRequestSchema: GenMessage<RecordEncounterRequest>;
/**
 * @generated from message cupid.v1.RecordEncounterResponse
 */
export type RecordEncounterResponse = Message<"cupid.v1.RecordEncounterResponse"> & {
    /**
     * The encounters written: two for every pair of players.
     *
     * @generated from field: int32 encounters = 1;
     */
    encounters: number;
};
/**
 * Describes the message cupid.v1.RecordEncounterResponse.
 * Use `create(RecordEncounterResponseSchema)` to create a new message.
 */
export declare const RecordEncounterResponseSchema: GenMessage<RecordEncounterResponse>;
/**
 * @generated from message cupid.v1.RevengeRequest
 */
export type RevengeRequest = Message<"cupid.v1.RevengeRequest"> & {
    /**
     * @generated from field: string player_id = 1;
     */
    playerId: string;
    /**
     * How far back (12 hours when left out).
     *
     * @generated from field: google.protobuf.Duration within = 2;
     */
    within?: Duration | undefined;
};
/**
 * Describes the message cupid.v1.RevengeRequest.
 * Use `create(RevengeRequestSchema)` to create a new message.
 */
export declare const RevengeRequestSchema: GenMessage<RevengeRequest>;
/**
 * @generated from message cupid.v1.RevengeResponse
 */
export type RevengeResponse = Message<"cupid.v1.RevengeResponse"> & {
    /**
     * @generated from field: repeated string player_ids = 1;
     */
    playerIds: string[];
};
/**
 * Describes the message cupid.v1.RevengeResponse.
 * Use `create(RevengeResponseSchema)` to create a new message.
 */
export declare const RevengeResponseSchema: GenMessage<RevengeResponse>;
/**
 * @generated from message cupid.v1.EraseRequest
 */
export type EraseRequest = Message<"cupid.v1.EraseRequest"> & {
    /**
     * @generated from field: string player_id = 1;
     */
    playerId: string;
};
/**
 * Describes the message cupid.v1.EraseRequest.
 * Use `create(EraseRequestSchema)` to create a new message.
 */
export declare const EraseRequestSchema: GenMessage<EraseRequest>;
/**
 * @generated from message cupid.v1.EraseResponse
 */
export type EraseResponse = Message<"cupid.v1.EraseResponse"> & {};
/**
 * Describes the message cupid.v1.EraseResponse.
 * Use `create(EraseResponseSchema)` to create a new message.
 */
export declare const EraseResponseSchema: GenMessage<EraseResponse>;
/**
 * @generated from message cupid.v1.RequestRematchRequest
 */
export type RequestRematchRequest = Message<"cupid.v1.RequestRematchRequest"> & {
    /**
     * @generated from field: string player_id = 1;
     */
    playerId: string;
    /**
     * @generated from field: string other_id = 2;
     */
    otherId: string;
    /**
     * The match they played.
     *
     * @generated from field: string ref = 3;
     */
    ref: string;
};
/**
 * Describes the message cupid.v1.RequestRematchRequest.
 * Use `create(RequestRematchRequestSchema)` to create a new message.
 */
export declare const RequestRematchRequestSchema: GenMessage<RequestRematchRequest>;
/**
 * @generated from message cupid.v1.AnswerRematchRequest
 */
export type AnswerRematchRequest = Message<"cupid.v1.AnswerRematchRequest"> & {
    /**
     * @generated from field: string player_id = 1;
     */
    playerId: string;
    /**
     * @generated from field: string rematch_id = 2;
     */
    rematchId: string;
    /**
     * @generated from field: bool accept = 3;
     */
    accept: boolean;
};
/**
 * Describes the message cupid.v1.AnswerRematchRequest.
 * Use `create(AnswerRematchRequestSchema)` to create a new message.
 */
export declare const AnswerRematchRequestSchema: GenMessage<AnswerRematchRequest>;
/**
 * @generated from message cupid.v1.GetRematchRequest
 */
export type GetRematchRequest = Message<"cupid.v1.GetRematchRequest"> & {
    /**
     * @generated from field: string player_id = 1;
     */
    playerId: string;
    /**
     * @generated from field: string rematch_id = 2;
     */
    rematchId: string;
};
/**
 * Describes the message cupid.v1.GetRematchRequest.
 * Use `create(GetRematchRequestSchema)` to create a new message.
 */
export declare const GetRematchRequestSchema: GenMessage<GetRematchRequest>;
/**
 * @generated from message cupid.v1.Rematch
 */
export type Rematch = Message<"cupid.v1.Rematch"> & {
    /**
     * @generated from field: string id = 1;
     */
    id: string;
    /**
     * The two players, the one who asked first.
     *
     * @generated from field: repeated string player_ids = 2;
     */
    playerIds: string[];
    /**
     * The queue and the match they played.
     *
     * @generated from field: string queue = 3;
     */
    queue: string;
    /**
     * @generated from field: string ref = 4;
     */
    ref: string;
    /**
     * pending, accepted, declined or expired.
     *
     * @generated from field: string state = 5;
     */
    state: string;
    /**
     * @generated from field: google.protobuf.Timestamp expires_at = 6;
     */
    expiresAt?: Timestamp | undefined;
    /**
     * The match formed once both accepted.
     *
     * @generated from field: string match_id = 7;
     */
    matchId: string;
};
/**
 * Describes the message cupid.v1.Rematch.
 * Use `create(RematchSchema)` to create a new message.
 */
export declare const RematchSchema: GenMessage<Rematch>;
/**
 * @generated from message cupid.v1.RematchResponse
 */
export type RematchResponse = Message<"cupid.v1.RematchResponse"> & {
    /**
     * @generated from field: cupid.v1.Rematch rematch = 1;
     */
    rematch?: Rematch | undefined;
};
/**
 * Describes the message cupid.v1.RematchResponse.
 * Use `create(RematchResponseSchema)` to create a new message.
 */
export declare const RematchResponseSchema: GenMessage<RematchResponse>;
/**
 * @generated from message cupid.v1.ReportPlayerRequest
 */
export type ReportPlayerRequest = Message<"cupid.v1.ReportPlayerRequest"> & {
    /**
     * @generated from field: string player_id = 1;
     */
    playerId: string;
    /**
     * @generated from field: string other_id = 2;
     */
    otherId: string;
    /**
     * @generated from field: string ref = 3;
     */
    ref: string;
    /**
     * @generated from field: string reason = 4;
     */
    reason: string;
    /**
     * Free text for the operator, at most 500 bytes.
     *
     * @generated from field: string note = 5;
     */
    note: string;
};
/**
 * Describes the message cupid.v1.ReportPlayerRequest.
 * Use `create(ReportPlayerRequestSchema)` to create a new message.
 */
export declare const ReportPlayerRequestSchema: GenMessage<ReportPlayerRequest>;
/**
 * @generated from message cupid.v1.PlayerReport
 */
export type PlayerReport = Message<"cupid.v1.PlayerReport"> & {
    /**
     * @generated from field: string reporter_id = 1;
     */
    reporterId: string;
    /**
     * @generated from field: string player_id = 2;
     */
    playerId: string;
    /**
     * @generated from field: string ref = 3;
     */
    ref: string;
    /**
     * @generated from field: string reason = 4;
     */
    reason: string;
    /**
     * @generated from field: string note = 5;
     */
    note: string;
    /**
     * @generated from field: google.protobuf.Timestamp at = 6;
     */
    at?: Timestamp | undefined;
};
/**
 * Describes the message cupid.v1.PlayerReport.
 * Use `create(PlayerReportSchema)` to create a new message.
 */
export declare const PlayerReportSchema: GenMessage<PlayerReport>;
/**
 * @generated from message cupid.v1.ReportPlayerResponse
 */
export type ReportPlayerResponse = Message<"cupid.v1.ReportPlayerResponse"> & {
    /**
     * @generated from field: cupid.v1.PlayerReport report = 1;
     */
    report?: PlayerReport | undefined;
};
/**
 * Describes the message cupid.v1.ReportPlayerResponse.
 * Use `create(ReportPlayerResponseSchema)` to create a new message.
 */
export declare const ReportPlayerResponseSchema: GenMessage<ReportPlayerResponse>;
/**
 * @generated from message cupid.v1.ListReportsRequest
 */
export type ListReportsRequest = Message<"cupid.v1.ListReportsRequest"> & {
    /**
     * @generated from field: string player_id = 1;
     */
    playerId: string;
};
/**
 * Describes the message cupid.v1.ListReportsRequest.
 * Use `create(ListReportsRequestSchema)` to create a new message.
 */
export declare const ListReportsRequestSchema: GenMessage<ListReportsRequest>;
/**
 * @generated from message cupid.v1.ListReportsResponse
 */
export type ListReportsResponse = Message<"cupid.v1.ListReportsResponse"> & {
    /**
     * @generated from field: repeated cupid.v1.PlayerReport reports = 1;
     */
    reports: PlayerReport[];
};
/**
 * Describes the message cupid.v1.ListReportsResponse.
 * Use `create(ListReportsResponseSchema)` to create a new message.
 */
export declare const ListReportsResponseSchema: GenMessage<ListReportsResponse>;
/**
 * EncounterService is the one history of who met whom, in every mode (a
 * real-time match, an async attack, a speed-dating round), and the
 * players' block and avoid lists that the modes read. A player token acts
 * only for its own player (player_id); a server key needs the tickets
 * scope, and an admin key to erase a player. Nobody is ever told who put
 * him on a list.
 *
 * @generated from service cupid.v1.EncounterService
 */
export declare const EncounterService: GenService<{
    /**
     * ListEncounters returns a player's encounters, newest first, within
     * the history's bounds (the configured recent count and horizon).
     *
     * @generated from rpc cupid.v1.EncounterService.ListEncounters
     */
    listEncounters: {
        methodKind: "unary";
        input: typeof ListEncountersRequestSchema;
        output: typeof ListEncountersResponseSchema;
    };
    /**
     * Block puts other_id on player_id's block list: the two are never put
     * together again, in any mode, whoever blocked whom. At most 64 entries;
     * blocking again is no error.
     *
     * @generated from rpc cupid.v1.EncounterService.Block
     */
    block: {
        methodKind: "unary";
        input: typeof BlockRequestSchema;
        output: typeof BlockResponseSchema;
    };
    /**
     * Unblock takes other_id off the block list; one not there is no error.
     *
     * @generated from rpc cupid.v1.EncounterService.Unblock
     */
    unblock: {
        methodKind: "unary";
        input: typeof UnblockRequestSchema;
        output: typeof UnblockResponseSchema;
    };
    /**
     * ListBlocks returns player_id's own block list.
     *
     * @generated from rpc cupid.v1.EncounterService.ListBlocks
     */
    listBlocks: {
        methodKind: "unary";
        input: typeof ListBlocksRequestSchema;
        output: typeof ListBlocksResponseSchema;
    };
    /**
     * Avoid puts other_id on player_id's avoid list, with a weight in
     * (0, 1] (1 when left out): rather not together, a soft rule a ruleset
     * may read. At most 64 entries; avoiding again replaces the weight.
     *
     * @generated from rpc cupid.v1.EncounterService.Avoid
     */
    avoid: {
        methodKind: "unary";
        input: typeof AvoidRequestSchema;
        output: typeof AvoidResponseSchema;
    };
    /**
     * Unavoid takes other_id off the avoid list.
     *
     * @generated from rpc cupid.v1.EncounterService.Unavoid
     */
    unavoid: {
        methodKind: "unary";
        input: typeof UnavoidRequestSchema;
        output: typeof UnavoidResponseSchema;
    };
    /**
     * ListAvoids returns player_id's own avoid list.
     *
     * @generated from rpc cupid.v1.EncounterService.ListAvoids
     */
    listAvoids: {
        methodKind: "unary";
        input: typeof ListAvoidsRequestSchema;
        output: typeof ListAvoidsResponseSchema;
    };
    /**
     * CheckPlayers says whether any two of the players must never meet (a
     * game's backend asks before it puts them together outside Cupid's
     * queues). Server keys only: a player is never told who blocked him.
     *
     * @generated from rpc cupid.v1.EncounterService.CheckPlayers
     */
    checkPlayers: {
        methodKind: "unary";
        input: typeof CheckPlayersRequestSchema;
        output: typeof CheckPlayersResponseSchema;
    };
    /**
     * RecordEncounter records a meeting Cupid did not make itself (a
     * custom lobby, a game of friends): its players met, team by team.
     * Server keys only.
     *
     * @generated from rpc cupid.v1.EncounterService.RecordEncounter
     */
    recordEncounter: {
        methodKind: "unary";
        input: typeof RecordEncounterRequestSchema;
        output: typeof RecordEncounterResponseSchema;
    };
    /**
     * Revenge lists the players who attacked player_id (in the opponent
     * finders) within a time: the defenders he may ask for directly.
     *
     * @generated from rpc cupid.v1.EncounterService.Revenge
     */
    revenge: {
        methodKind: "unary";
        input: typeof RevengeRequestSchema;
        output: typeof RevengeResponseSchema;
    };
    /**
     * Erase deletes a player's history (his encounters and others'
     * encounters with him) and his own lists: an erasure request. Others'
     * blocks of him stay. Admin keys only.
     *
     * @generated from rpc cupid.v1.EncounterService.Erase
     */
    erase: {
        methodKind: "unary";
        input: typeof EraseRequestSchema;
        output: typeof EraseResponseSchema;
    };
    /**
     * RequestRematch asks other_id to play again right after the match ref
     * they played against each other in a real-time queue (within the
     * rematch window of it, 2 minutes unless configured). Asking again
     * while it waits returns it; when the other asked first, asking is
     * accepting.
     *
     * @generated from rpc cupid.v1.EncounterService.RequestRematch
     */
    requestRematch: {
        methodKind: "unary";
        input: typeof RequestRematchRequestSchema;
        output: typeof RematchResponseSchema;
    };
    /**
     * AnswerRematch accepts or declines a rematch within its window; once
     * both accepted, their match is formed in the same queue (its id in
     * match_id) and handed off like any match of the queue.
     *
     * @generated from rpc cupid.v1.EncounterService.AnswerRematch
     */
    answerRematch: {
        methodKind: "unary";
        input: typeof AnswerRematchRequestSchema;
        output: typeof RematchResponseSchema;
    };
    /**
     * GetRematch reads a rematch of player_id's.
     *
     * @generated from rpc cupid.v1.EncounterService.GetRematch
     */
    getRematch: {
        methodKind: "unary";
        input: typeof GetRematchRequestSchema;
        output: typeof RematchResponseSchema;
    };
    /**
     * ReportPlayer reports other_id, met in the match ref, for one of the
     * configured reasons. Reporting the same player from the same match
     * again changes nothing. When a reason's reports from different players
     * reach its threshold, the player is marked low priority. The reporter
     * is never told what his report led to.
     *
     * @generated from rpc cupid.v1.EncounterService.ReportPlayer
     */
    reportPlayer: {
        methodKind: "unary";
        input: typeof ReportPlayerRequestSchema;
        output: typeof ReportPlayerResponseSchema;
    };
    /**
     * ListReports lists the reports of a player within the reports' window,
     * oldest first. Admin keys only.
     *
     * @generated from rpc cupid.v1.EncounterService.ListReports
     */
    listReports: {
        methodKind: "unary";
        input: typeof ListReportsRequestSchema;
        output: typeof ListReportsResponseSchema;
    };
}>;
