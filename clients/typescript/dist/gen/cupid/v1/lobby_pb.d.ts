import type { GenEnum, GenFile, GenMessage, GenService } from "@bufbuild/protobuf/codegenv2";
import type { Match } from "./ticket_pb.js";
import type { Timestamp, Value } from "@bufbuild/protobuf/wkt";
import type { Message } from "@bufbuild/protobuf";
/**
 * Describes the file cupid/v1/lobby.proto.
 */
export declare const file_cupid_v1_lobby: GenFile;
/**
 * @generated from message cupid.v1.LobbySettings
 */
export type LobbySettings = Message<"cupid.v1.LobbySettings"> & {
    /**
     * Shown in lists; optional.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * The queue (game mode) whose match the lobby becomes; required.
     *
     * @generated from field: string queue = 2;
     */
    queue: string;
    /**
     * The number of teams and the seats of each; required.
     *
     * @generated from field: int32 teams = 3;
     */
    teams: number;
    /**
     * @generated from field: int32 team_size = 4;
     */
    teamSize: number;
    /**
     * @generated from field: cupid.v1.LobbyVisibility visibility = 5;
     */
    visibility: LobbyVisibility;
    /**
     * Labels players filter the list on (map, region, mode …).
     *
     * @generated from field: map<string, string> attributes = 6;
     */
    attributes: {
        [key: string]: string;
    };
    /**
     * Start the match open to backfill while it has free seats: the queue's
     * pool fills them with waiting tickets under the queue's ruleset, as it
     * fills a game session (docs/lobbies.md).
     *
     * @generated from field: bool fill_from_queue = 7;
     */
    fillFromQueue: boolean;
};
/**
 * Describes the message cupid.v1.LobbySettings.
 * Use `create(LobbySettingsSchema)` to create a new message.
 */
export declare const LobbySettingsSchema: GenMessage<LobbySettings>;
/**
 * @generated from message cupid.v1.LobbyMember
 */
export type LobbyMember = Message<"cupid.v1.LobbyMember"> & {
    /**
     * @generated from field: string id = 1;
     */
    id: string;
    /**
     * @generated from field: int32 team = 2;
     */
    team: number;
    /**
     * @generated from field: bool ready = 3;
     */
    ready: boolean;
    /**
     * @generated from field: google.protobuf.Timestamp joined_at = 4;
     */
    joinedAt?: Timestamp | undefined;
};
/**
 * Describes the message cupid.v1.LobbyMember.
 * Use `create(LobbyMemberSchema)` to create a new message.
 */
export declare const LobbyMemberSchema: GenMessage<LobbyMember>;
/**
 * @generated from message cupid.v1.Lobby
 */
export type Lobby = Message<"cupid.v1.Lobby"> & {
    /**
     * @generated from field: string id = 1;
     */
    id: string;
    /**
     * The join code: shown to members, to server keys, and for public
     * lobbies to everyone.
     *
     * @generated from field: string code = 2;
     */
    code: string;
    /**
     * @generated from field: string host = 3;
     */
    host: string;
    /**
     * @generated from field: cupid.v1.LobbySettings settings = 4;
     */
    settings?: LobbySettings | undefined;
    /**
     * @generated from field: repeated cupid.v1.LobbyMember members = 5;
     */
    members: LobbyMember[];
    /**
     * @generated from field: bool locked = 6;
     */
    locked: boolean;
    /**
     * @generated from field: cupid.v1.LobbyState state = 7;
     */
    state: LobbyState;
    /**
     * @generated from field: int32 free_seats = 8;
     */
    freeSeats: number;
    /**
     * @generated from field: google.protobuf.Timestamp created_at = 9;
     */
    createdAt?: Timestamp | undefined;
    /**
     * @generated from field: google.protobuf.Timestamp updated_at = 10;
     */
    updatedAt?: Timestamp | undefined;
    /**
     * The match the lobby became.
     *
     * @generated from field: string match_id = 11;
     */
    matchId: string;
    /**
     * Why it closed, or why its last start was refused.
     *
     * @generated from field: string reason = 12;
     */
    reason: string;
    /**
     * The seq of its last event.
     *
     * @generated from field: int64 seq = 13;
     */
    seq: bigint;
};
/**
 * Describes the message cupid.v1.Lobby.
 * Use `create(LobbySchema)` to create a new message.
 */
export declare const LobbySchema: GenMessage<Lobby>;
/**
 * @generated from message cupid.v1.LobbyResponse
 */
export type LobbyResponse = Message<"cupid.v1.LobbyResponse"> & {
    /**
     * @generated from field: cupid.v1.Lobby lobby = 1;
     */
    lobby?: Lobby | undefined;
};
/**
 * Describes the message cupid.v1.LobbyResponse.
 * Use `create(LobbyResponseSchema)` to create a new message.
 */
export declare const LobbyResponseSchema: GenMessage<LobbyResponse>;
/**
 * @generated from message cupid.v1.CreateLobbyRequest
 */
export type CreateLobbyRequest = Message<"cupid.v1.CreateLobbyRequest"> & {
    /**
     * The host: the player who opens the lobby.
     *
     * @generated from field: string player = 1;
     */
    player: string;
    /**
     * The host's own values, carried into his ticket when the lobby starts.
     *
     * @generated from field: map<string, google.protobuf.Value> attributes = 2;
     */
    attributes: {
        [key: string]: Value;
    };
    /**
     * @generated from field: cupid.v1.LobbySettings settings = 3;
     */
    settings?: LobbySettings | undefined;
};
/**
 * Describes the message cupid.v1.CreateLobbyRequest.
 * Use `create(CreateLobbyRequestSchema)` to create a new message.
 */
export declare const CreateLobbyRequestSchema: GenMessage<CreateLobbyRequest>;
/**
 * @generated from message cupid.v1.GetLobbyRequest
 */
export type GetLobbyRequest = Message<"cupid.v1.GetLobbyRequest"> & {
    /**
     * @generated from field: string lobby_id = 1;
     */
    lobbyId: string;
};
/**
 * Describes the message cupid.v1.GetLobbyRequest.
 * Use `create(GetLobbyRequestSchema)` to create a new message.
 */
export declare const GetLobbyRequestSchema: GenMessage<GetLobbyRequest>;
/**
 * @generated from message cupid.v1.ListLobbiesRequest
 */
export type ListLobbiesRequest = Message<"cupid.v1.ListLobbiesRequest"> & {
    /**
     * Only lobbies of this queue, when set.
     *
     * @generated from field: string queue = 1;
     */
    queue: string;
    /**
     * Only lobbies with every one of these attribute values.
     *
     * @generated from field: map<string, string> attributes = 2;
     */
    attributes: {
        [key: string]: string;
    };
    /**
     * Only lobbies with at least this many empty seats.
     *
     * @generated from field: int32 min_free_seats = 3;
     */
    minFreeSeats: number;
    /**
     * Locked lobbies too (left out by default).
     *
     * @generated from field: bool include_locked = 4;
     */
    includeLocked: boolean;
    /**
     * 50 when 0, at most 200.
     *
     * @generated from field: int32 page_size = 5;
     */
    pageSize: number;
    /**
     * The next_cursor of the previous page.
     *
     * @generated from field: string cursor = 6;
     */
    cursor: string;
};
/**
 * Describes the message cupid.v1.ListLobbiesRequest.
 * Use `create(ListLobbiesRequestSchema)` to create a new message.
 */
export declare const ListLobbiesRequestSchema: GenMessage<ListLobbiesRequest>;
/**
 * @generated from message cupid.v1.ListLobbiesResponse
 */
export type ListLobbiesResponse = Message<"cupid.v1.ListLobbiesResponse"> & {
    /**
     * @generated from field: repeated cupid.v1.Lobby lobbies = 1;
     */
    lobbies: Lobby[];
    /**
     * Empty on the last page.
     *
     * @generated from field: string next_cursor = 2;
     */
    nextCursor: string;
};
/**
 * Describes the message cupid.v1.ListLobbiesResponse.
 * Use `create(ListLobbiesResponseSchema)` to create a new message.
 */
export declare const ListLobbiesResponseSchema: GenMessage<ListLobbiesResponse>;
/**
 * @generated from message cupid.v1.JoinLobbyRequest
 */
export type JoinLobbyRequest = Message<"cupid.v1.JoinLobbyRequest"> & {
    /**
     * The lobby's id, or its code (one is enough; a private lobby needs the
     * code).
     *
     * @generated from field: string lobby_id = 1;
     */
    lobbyId: string;
    /**
     * @generated from field: string code = 2;
     */
    code: string;
    /**
     * @generated from field: string player = 3;
     */
    player: string;
    /**
     * The player's own values, carried into his ticket.
     *
     * @generated from field: map<string, google.protobuf.Value> attributes = 4;
     */
    attributes: {
        [key: string]: Value;
    };
    /**
     * The team to join; the emptiest when absent.
     *
     * @generated from field: optional int32 team = 5;
     */
    team?: number | undefined;
};
/**
 * Describes the message cupid.v1.JoinLobbyRequest.
 * Use `create(JoinLobbyRequestSchema)` to create a new message.
 */
export declare const JoinLobbyRequestSchema: GenMessage<JoinLobbyRequest>;
/**
 * @generated from message cupid.v1.LobbyPlayerRequest
 */
export type LobbyPlayerRequest = Message<"cupid.v1.LobbyPlayerRequest"> & {
    /**
     * @generated from field: string lobby_id = 1;
     */
    lobbyId: string;
    /**
     * @generated from field: string player = 2;
     */
    player: string;
};
/**
 * Describes the message cupid.v1.LobbyPlayerRequest.
 * Use `create(LobbyPlayerRequestSchema)` to create a new message.
 */
export declare const LobbyPlayerRequestSchema: GenMessage<LobbyPlayerRequest>;
/**
 * @generated from message cupid.v1.LobbyTargetRequest
 */
export type LobbyTargetRequest = Message<"cupid.v1.LobbyTargetRequest"> & {
    /**
     * @generated from field: string lobby_id = 1;
     */
    lobbyId: string;
    /**
     * The host.
     *
     * @generated from field: string player = 2;
     */
    player: string;
    /**
     * The member kicked or made host.
     *
     * @generated from field: string target = 3;
     */
    target: string;
};
/**
 * Describes the message cupid.v1.LobbyTargetRequest.
 * Use `create(LobbyTargetRequestSchema)` to create a new message.
 */
export declare const LobbyTargetRequestSchema: GenMessage<LobbyTargetRequest>;
/**
 * @generated from message cupid.v1.SetTeamRequest
 */
export type SetTeamRequest = Message<"cupid.v1.SetTeamRequest"> & {
    /**
     * @generated from field: string lobby_id = 1;
     */
    lobbyId: string;
    /**
     * @generated from field: string player = 2;
     */
    player: string;
    /**
     * The emptiest team when absent.
     *
     * @generated from field: optional int32 team = 3;
     */
    team?: number | undefined;
};
/**
 * Describes the message cupid.v1.SetTeamRequest.
 * Use `create(SetTeamRequestSchema)` to create a new message.
 */
export declare const SetTeamRequestSchema: GenMessage<SetTeamRequest>;
/**
 * @generated from message cupid.v1.SetReadyRequest
 */
export type SetReadyRequest = Message<"cupid.v1.SetReadyRequest"> & {
    /**
     * @generated from field: string lobby_id = 1;
     */
    lobbyId: string;
    /**
     * @generated from field: string player = 2;
     */
    player: string;
    /**
     * @generated from field: bool ready = 3;
     */
    ready: boolean;
};
/**
 * Describes the message cupid.v1.SetReadyRequest.
 * Use `create(SetReadyRequestSchema)` to create a new message.
 */
export declare const SetReadyRequestSchema: GenMessage<SetReadyRequest>;
/**
 * @generated from message cupid.v1.LockRequest
 */
export type LockRequest = Message<"cupid.v1.LockRequest"> & {
    /**
     * @generated from field: string lobby_id = 1;
     */
    lobbyId: string;
    /**
     * @generated from field: string player = 2;
     */
    player: string;
    /**
     * @generated from field: bool locked = 3;
     */
    locked: boolean;
};
/**
 * Describes the message cupid.v1.LockRequest.
 * Use `create(LockRequestSchema)` to create a new message.
 */
export declare const LockRequestSchema: GenMessage<LockRequest>;
/**
 * @generated from message cupid.v1.StartLobbyResponse
 */
export type StartLobbyResponse = Message<"cupid.v1.StartLobbyResponse"> & {
    /**
     * @generated from field: cupid.v1.Lobby lobby = 1;
     */
    lobby?: Lobby | undefined;
    /**
     * The match the lobby became, as WatchMatches shows it.
     *
     * @generated from field: cupid.v1.Match match = 2;
     */
    match?: Match | undefined;
};
/**
 * Describes the message cupid.v1.StartLobbyResponse.
 * Use `create(StartLobbyResponseSchema)` to create a new message.
 */
export declare const StartLobbyResponseSchema: GenMessage<StartLobbyResponse>;
/**
 * @generated from message cupid.v1.WatchLobbyRequest
 */
export type WatchLobbyRequest = Message<"cupid.v1.WatchLobbyRequest"> & {
    /**
     * @generated from field: string lobby_id = 1;
     */
    lobbyId: string;
    /**
     * Resume after this seq; 0 starts with a "watching" message.
     *
     * @generated from field: int64 after_seq = 2;
     */
    afterSeq: bigint;
};
/**
 * Describes the message cupid.v1.WatchLobbyRequest.
 * Use `create(WatchLobbyRequestSchema)` to create a new message.
 */
export declare const WatchLobbyRequestSchema: GenMessage<WatchLobbyRequest>;
/**
 * @generated from message cupid.v1.LobbyEvent
 */
export type LobbyEvent = Message<"cupid.v1.LobbyEvent"> & {
    /**
     * @generated from field: int64 seq = 1;
     */
    seq: bigint;
    /**
     * created, joined, left, kicked, team_changed, ready, not_ready, locked,
     * unlocked, host_changed, starting, start_failed, started, closed; and
     * watching, the first message of a watch from the start.
     *
     * @generated from field: string kind = 2;
     */
    kind: string;
    /**
     * @generated from field: google.protobuf.Timestamp at = 3;
     */
    at?: Timestamp | undefined;
    /**
     * @generated from field: string player = 4;
     */
    player: string;
    /**
     * @generated from field: int32 team = 5;
     */
    team: number;
    /**
     * @generated from field: string match_id = 6;
     */
    matchId: string;
    /**
     * @generated from field: string reason = 7;
     */
    reason: string;
    /**
     * The lobby as it is when the event is sent.
     *
     * @generated from field: cupid.v1.Lobby lobby = 8;
     */
    lobby?: Lobby | undefined;
};
/**
 * Describes the message cupid.v1.LobbyEvent.
 * Use `create(LobbyEventSchema)` to create a new message.
 */
export declare const LobbyEventSchema: GenMessage<LobbyEvent>;
/**
 * @generated from enum cupid.v1.LobbyVisibility
 */
export declare enum LobbyVisibility {
    /**
     * Public: listed, joined by id or code.
     *
     * @generated from enum value: LOBBY_VISIBILITY_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * @generated from enum value: LOBBY_VISIBILITY_PUBLIC = 1;
     */
    PUBLIC = 1,
    /**
     * Private: not listed, joined only with the code.
     *
     * @generated from enum value: LOBBY_VISIBILITY_PRIVATE = 2;
     */
    PRIVATE = 2
}
/**
 * Describes the enum cupid.v1.LobbyVisibility.
 */
export declare const LobbyVisibilitySchema: GenEnum<LobbyVisibility>;
/**
 * @generated from enum cupid.v1.LobbyState
 */
export declare enum LobbyState {
    /**
     * @generated from enum value: LOBBY_STATE_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * @generated from enum value: LOBBY_STATE_OPEN = 1;
     */
    OPEN = 1,
    /**
     * The host started it; its match is being stored.
     *
     * @generated from enum value: LOBBY_STATE_STARTING = 2;
     */
    STARTING = 2,
    /**
     * Its match exists (match_id).
     *
     * @generated from enum value: LOBBY_STATE_STARTED = 3;
     */
    STARTED = 3,
    /**
     * @generated from enum value: LOBBY_STATE_CLOSED = 4;
     */
    CLOSED = 4
}
/**
 * Describes the enum cupid.v1.LobbyState.
 */
export declare const LobbyStateSchema: GenEnum<LobbyState>;
/**
 * LobbyService runs custom games: a host opens a lobby for a queue with a
 * number of teams and seats, players find it in the list (public lobbies)
 * or join it with its code, pick a team or are placed, mark themselves
 * ready, and the host starts it. Started, the lobby is a match of its
 * queue with the lobby's teams, on the queue's match log like any other
 * (WatchMatches, AssignMatch, sessions, leavers).
 *
 * Every request that acts names the acting player in `player`: a player
 * token may act only as its own player; a server key with the tickets
 * scope as anyone. What only the host may do (kick, lock, hand over,
 * start, close) is checked against the lobby's host.
 *
 * @generated from service cupid.v1.LobbyService
 */
export declare const LobbyService: GenService<{
    /**
     * @generated from rpc cupid.v1.LobbyService.CreateLobby
     */
    createLobby: {
        methodKind: "unary";
        input: typeof CreateLobbyRequestSchema;
        output: typeof LobbyResponseSchema;
    };
    /**
     * @generated from rpc cupid.v1.LobbyService.GetLobby
     */
    getLobby: {
        methodKind: "unary";
        input: typeof GetLobbyRequestSchema;
        output: typeof LobbyResponseSchema;
    };
    /**
     * ListLobbies lists open public lobbies, filtered, a page at a time.
     *
     * @generated from rpc cupid.v1.LobbyService.ListLobbies
     */
    listLobbies: {
        methodKind: "unary";
        input: typeof ListLobbiesRequestSchema;
        output: typeof ListLobbiesResponseSchema;
    };
    /**
     * JoinLobby joins by lobby_id (public lobbies) or code (any lobby).
     *
     * @generated from rpc cupid.v1.LobbyService.JoinLobby
     */
    joinLobby: {
        methodKind: "unary";
        input: typeof JoinLobbyRequestSchema;
        output: typeof LobbyResponseSchema;
    };
    /**
     * LeaveLobby: a host who leaves hands the lobby to the member who joined
     * first; the last one out closes it.
     *
     * @generated from rpc cupid.v1.LobbyService.LeaveLobby
     */
    leaveLobby: {
        methodKind: "unary";
        input: typeof LobbyPlayerRequestSchema;
        output: typeof LobbyResponseSchema;
    };
    /**
     * @generated from rpc cupid.v1.LobbyService.SetTeam
     */
    setTeam: {
        methodKind: "unary";
        input: typeof SetTeamRequestSchema;
        output: typeof LobbyResponseSchema;
    };
    /**
     * @generated from rpc cupid.v1.LobbyService.SetReady
     */
    setReady: {
        methodKind: "unary";
        input: typeof SetReadyRequestSchema;
        output: typeof LobbyResponseSchema;
    };
    /**
     * Kick removes a member, who may not come back (the host's).
     *
     * @generated from rpc cupid.v1.LobbyService.Kick
     */
    kick: {
        methodKind: "unary";
        input: typeof LobbyTargetRequestSchema;
        output: typeof LobbyResponseSchema;
    };
    /**
     * Lock stops joins and team changes; locked false unlocks (the host's).
     *
     * @generated from rpc cupid.v1.LobbyService.Lock
     */
    lock: {
        methodKind: "unary";
        input: typeof LockRequestSchema;
        output: typeof LobbyResponseSchema;
    };
    /**
     * HandOverHost makes another member the host (the host's).
     *
     * @generated from rpc cupid.v1.LobbyService.HandOverHost
     */
    handOverHost: {
        methodKind: "unary";
        input: typeof LobbyTargetRequestSchema;
        output: typeof LobbyResponseSchema;
    };
    /**
     * Start turns the lobby into a match (the host's; every member ready,
     * no team empty). A player in another live match refuses it.
     *
     * @generated from rpc cupid.v1.LobbyService.Start
     */
    start: {
        methodKind: "unary";
        input: typeof LobbyPlayerRequestSchema;
        output: typeof StartLobbyResponseSchema;
    };
    /**
     * CloseLobby ends the lobby without a match (the host's).
     *
     * @generated from rpc cupid.v1.LobbyService.CloseLobby
     */
    closeLobby: {
        methodKind: "unary";
        input: typeof LobbyPlayerRequestSchema;
        output: typeof LobbyResponseSchema;
    };
    /**
     * WatchLobby streams a lobby's events, each with the lobby as it is then,
     * until it starts or closes; after_seq resumes after the last one seen.
     *
     * @generated from rpc cupid.v1.LobbyService.WatchLobby
     */
    watchLobby: {
        methodKind: "server_streaming";
        input: typeof WatchLobbyRequestSchema;
        output: typeof LobbyEventSchema;
    };
}>;
