import type { GenEnum, GenFile, GenMessage, GenService } from "@bufbuild/protobuf/codegenv2";
import type { Duration, ListValue, Timestamp, Value } from "@bufbuild/protobuf/wkt";
import type { Message } from "@bufbuild/protobuf";
/**
 * Describes the file cupid/v1/ticket.proto.
 */
export declare const file_cupid_v1_ticket: GenFile;
/**
 * Player is one person in a ticket. Attribute values are numbers, strings or
 * lists of strings.
 *
 * @generated from message cupid.v1.Player
 */
export type Player = Message<"cupid.v1.Player"> & {
    /**
     * @generated from field: string id = 1;
     */
    id: string;
    /**
     * @generated from field: map<string, google.protobuf.Value> attributes = 2;
     */
    attributes: {
        [key: string]: Value;
    };
};
/**
 * Describes the message cupid.v1.Player.
 * Use `create(PlayerSchema)` to create a new message.
 */
export declare const PlayerSchema: GenMessage<Player>;
/**
 * @generated from message cupid.v1.CreateTicketRequest
 */
export type CreateTicketRequest = Message<"cupid.v1.CreateTicketRequest"> & {
    /**
     * The queue's name, as in the server's configuration.
     *
     * @generated from field: string queue = 1;
     */
    queue: string;
    /**
     * One player, or a party that will be kept together on one team.
     *
     * @generated from field: repeated cupid.v1.Player players = 2;
     */
    players: Player[];
    /**
     * Round-trip time in milliseconds to each region.
     *
     * @generated from field: map<string, int32> latencies = 3;
     */
    latencies: {
        [key: string]: number;
    };
    /**
     * Ticket-wide values, such as match options.
     *
     * @generated from field: map<string, google.protobuf.Value> attributes = 4;
     */
    attributes: {
        [key: string]: Value;
    };
    /**
     * A caller-chosen key that makes the call idempotent.
     *
     * @generated from field: string request_id = 5;
     */
    requestId: string;
    /**
     * The game server version; tickets of different versions never meet.
     *
     * @generated from field: string version = 6;
     */
    version: string;
    /**
     * A custom key that splits the queue further (a game mode, say).
     *
     * @generated from field: string custom_key = 7;
     */
    customKey: string;
    /**
     * Cancel the players' live tickets in this queue and take their place,
     * instead of refusing the ticket with already_exists.
     *
     * @generated from field: bool replace = 8;
     */
    replace: boolean;
};
/**
 * Describes the message cupid.v1.CreateTicketRequest.
 * Use `create(CreateTicketRequestSchema)` to create a new message.
 */
export declare const CreateTicketRequestSchema: GenMessage<CreateTicketRequest>;
/**
 * @generated from message cupid.v1.CreateTicketsRequest
 */
export type CreateTicketsRequest = Message<"cupid.v1.CreateTicketsRequest"> & {
    /**
     * @generated from field: repeated cupid.v1.CreateTicketRequest tickets = 1;
     */
    tickets: CreateTicketRequest[];
};
/**
 * Describes the message cupid.v1.CreateTicketsRequest.
 * Use `create(CreateTicketsRequestSchema)` to create a new message.
 */
export declare const CreateTicketsRequestSchema: GenMessage<CreateTicketsRequest>;
/**
 * @generated from message cupid.v1.CreateTicketsResponse
 */
export type CreateTicketsResponse = Message<"cupid.v1.CreateTicketsResponse"> & {
    /**
     * One per requested ticket, in request order.
     *
     * @generated from field: repeated cupid.v1.CreateTicketResult results = 1;
     */
    results: CreateTicketResult[];
};
/**
 * Describes the message cupid.v1.CreateTicketsResponse.
 * Use `create(CreateTicketsResponseSchema)` to create a new message.
 */
export declare const CreateTicketsResponseSchema: GenMessage<CreateTicketsResponse>;
/**
 * CreateTicketResult is what became of one ticket of CreateTickets: the
 * ticket, or the error that refused it.
 *
 * @generated from message cupid.v1.CreateTicketResult
 */
export type CreateTicketResult = Message<"cupid.v1.CreateTicketResult"> & {
    /**
     * @generated from field: cupid.v1.Ticket ticket = 1;
     */
    ticket?: Ticket | undefined;
    /**
     * @generated from field: bool existed = 2;
     */
    existed: boolean;
    /**
     * The Connect code name of the error (invalid_argument, already_exists,
     * …) and its message; empty when the ticket was created or existed.
     *
     * @generated from field: string error_code = 3;
     */
    errorCode: string;
    /**
     * @generated from field: string error = 4;
     */
    error: string;
    /**
     * The field the error concerns, as in the message (tickets[3].players[0].id).
     *
     * @generated from field: string error_field = 5;
     */
    errorField: string;
};
/**
 * Describes the message cupid.v1.CreateTicketResult.
 * Use `create(CreateTicketResultSchema)` to create a new message.
 */
export declare const CreateTicketResultSchema: GenMessage<CreateTicketResult>;
/**
 * @generated from message cupid.v1.CreateTicketResponse
 */
export type CreateTicketResponse = Message<"cupid.v1.CreateTicketResponse"> & {
    /**
     * @generated from field: cupid.v1.Ticket ticket = 1;
     */
    ticket?: Ticket | undefined;
    /**
     * True when request_id matched an earlier ticket, which is returned.
     *
     * @generated from field: bool existed = 2;
     */
    existed: boolean;
};
/**
 * Describes the message cupid.v1.CreateTicketResponse.
 * Use `create(CreateTicketResponseSchema)` to create a new message.
 */
export declare const CreateTicketResponseSchema: GenMessage<CreateTicketResponse>;
/**
 * @generated from message cupid.v1.GetTicketRequest
 */
export type GetTicketRequest = Message<"cupid.v1.GetTicketRequest"> & {
    /**
     * @generated from field: string id = 1;
     */
    id: string;
};
/**
 * Describes the message cupid.v1.GetTicketRequest.
 * Use `create(GetTicketRequestSchema)` to create a new message.
 */
export declare const GetTicketRequestSchema: GenMessage<GetTicketRequest>;
/**
 * @generated from message cupid.v1.GetTicketResponse
 */
export type GetTicketResponse = Message<"cupid.v1.GetTicketResponse"> & {
    /**
     * @generated from field: cupid.v1.Ticket ticket = 1;
     */
    ticket?: Ticket | undefined;
};
/**
 * Describes the message cupid.v1.GetTicketResponse.
 * Use `create(GetTicketResponseSchema)` to create a new message.
 */
export declare const GetTicketResponseSchema: GenMessage<GetTicketResponse>;
/**
 * @generated from message cupid.v1.CancelTicketRequest
 */
export type CancelTicketRequest = Message<"cupid.v1.CancelTicketRequest"> & {
    /**
     * @generated from field: string id = 1;
     */
    id: string;
};
/**
 * Describes the message cupid.v1.CancelTicketRequest.
 * Use `create(CancelTicketRequestSchema)` to create a new message.
 */
export declare const CancelTicketRequestSchema: GenMessage<CancelTicketRequest>;
/**
 * @generated from message cupid.v1.CancelTicketResponse
 */
export type CancelTicketResponse = Message<"cupid.v1.CancelTicketResponse"> & {
    /**
     * @generated from field: cupid.v1.Ticket ticket = 1;
     */
    ticket?: Ticket | undefined;
};
/**
 * Describes the message cupid.v1.CancelTicketResponse.
 * Use `create(CancelTicketResponseSchema)` to create a new message.
 */
export declare const CancelTicketResponseSchema: GenMessage<CancelTicketResponse>;
/**
 * @generated from message cupid.v1.AcceptOfferRequest
 */
export type AcceptOfferRequest = Message<"cupid.v1.AcceptOfferRequest"> & {
    /**
     * The waiting ticket.
     *
     * @generated from field: string id = 1;
     */
    id: string;
    /**
     * The offer's id, from the ticket's why.offers ("latency:eu-west").
     *
     * @generated from field: string offer_id = 2;
     */
    offerId: string;
};
/**
 * Describes the message cupid.v1.AcceptOfferRequest.
 * Use `create(AcceptOfferRequestSchema)` to create a new message.
 */
export declare const AcceptOfferRequestSchema: GenMessage<AcceptOfferRequest>;
/**
 * @generated from message cupid.v1.AcceptOfferResponse
 */
export type AcceptOfferResponse = Message<"cupid.v1.AcceptOfferResponse"> & {
    /**
     * The ticket as it now is: same id and created_at, the offer's change.
     *
     * @generated from field: cupid.v1.Ticket ticket = 1;
     */
    ticket?: Ticket | undefined;
    /**
     * The offer as it was accepted.
     *
     * @generated from field: cupid.v1.Offer offer = 2;
     */
    offer?: Offer | undefined;
};
/**
 * Describes the message cupid.v1.AcceptOfferResponse.
 * Use `create(AcceptOfferResponseSchema)` to create a new message.
 */
export declare const AcceptOfferResponseSchema: GenMessage<AcceptOfferResponse>;
/**
 * @generated from message cupid.v1.CancelTicketsRequest
 */
export type CancelTicketsRequest = Message<"cupid.v1.CancelTicketsRequest"> & {
    /**
     * @generated from field: repeated string ids = 1;
     */
    ids: string[];
};
/**
 * Describes the message cupid.v1.CancelTicketsRequest.
 * Use `create(CancelTicketsRequestSchema)` to create a new message.
 */
export declare const CancelTicketsRequestSchema: GenMessage<CancelTicketsRequest>;
/**
 * @generated from message cupid.v1.CancelTicketsResponse
 */
export type CancelTicketsResponse = Message<"cupid.v1.CancelTicketsResponse"> & {
    /**
     * One per requested id, in request order.
     *
     * @generated from field: repeated cupid.v1.CancelTicketResult results = 1;
     */
    results: CancelTicketResult[];
};
/**
 * Describes the message cupid.v1.CancelTicketsResponse.
 * Use `create(CancelTicketsResponseSchema)` to create a new message.
 */
export declare const CancelTicketsResponseSchema: GenMessage<CancelTicketsResponse>;
/**
 * CancelTicketResult is what became of one ticket of CancelTickets: the
 * cancelled ticket, or the error (not_found, failed_precondition when it
 * had already ended…).
 *
 * @generated from message cupid.v1.CancelTicketResult
 */
export type CancelTicketResult = Message<"cupid.v1.CancelTicketResult"> & {
    /**
     * @generated from field: cupid.v1.Ticket ticket = 1;
     */
    ticket?: Ticket | undefined;
    /**
     * @generated from field: string error_code = 2;
     */
    errorCode: string;
    /**
     * @generated from field: string error = 3;
     */
    error: string;
    /**
     * @generated from field: string error_field = 4;
     */
    errorField: string;
};
/**
 * Describes the message cupid.v1.CancelTicketResult.
 * Use `create(CancelTicketResultSchema)` to create a new message.
 */
export declare const CancelTicketResultSchema: GenMessage<CancelTicketResult>;
/**
 * @generated from message cupid.v1.ListTicketsRequest
 */
export type ListTicketsRequest = Message<"cupid.v1.ListTicketsRequest"> & {
    /**
     * @generated from field: string queue = 1;
     */
    queue: string;
    /**
     * @generated from field: cupid.v1.TicketState state = 2;
     */
    state: TicketState;
    /**
     * At most this many; 100 when zero, 1000 at most.
     *
     * @generated from field: int32 limit = 3;
     */
    limit: number;
};
/**
 * Describes the message cupid.v1.ListTicketsRequest.
 * Use `create(ListTicketsRequestSchema)` to create a new message.
 */
export declare const ListTicketsRequestSchema: GenMessage<ListTicketsRequest>;
/**
 * @generated from message cupid.v1.ListTicketsResponse
 */
export type ListTicketsResponse = Message<"cupid.v1.ListTicketsResponse"> & {
    /**
     * @generated from field: repeated cupid.v1.Ticket tickets = 1;
     */
    tickets: Ticket[];
};
/**
 * Describes the message cupid.v1.ListTicketsResponse.
 * Use `create(ListTicketsResponseSchema)` to create a new message.
 */
export declare const ListTicketsResponseSchema: GenMessage<ListTicketsResponse>;
/**
 * @generated from message cupid.v1.QueueStatsRequest
 */
export type QueueStatsRequest = Message<"cupid.v1.QueueStatsRequest"> & {
    /**
     * Only this queue; every queue when empty.
     *
     * @generated from field: string queue = 1;
     */
    queue: string;
};
/**
 * Describes the message cupid.v1.QueueStatsRequest.
 * Use `create(QueueStatsRequestSchema)` to create a new message.
 */
export declare const QueueStatsRequestSchema: GenMessage<QueueStatsRequest>;
/**
 * @generated from message cupid.v1.QueueStatsResponse
 */
export type QueueStatsResponse = Message<"cupid.v1.QueueStatsResponse"> & {
    /**
     * @generated from field: repeated cupid.v1.PoolStats pools = 1;
     */
    pools: PoolStats[];
};
/**
 * Describes the message cupid.v1.QueueStatsResponse.
 * Use `create(QueueStatsResponseSchema)` to create a new message.
 */
export declare const QueueStatsResponseSchema: GenMessage<QueueStatsResponse>;
/**
 * PoolStats describes one pool: a queue split by version and custom key.
 *
 * @generated from message cupid.v1.PoolStats
 */
export type PoolStats = Message<"cupid.v1.PoolStats"> & {
    /**
     * @generated from field: string queue = 1;
     */
    queue: string;
    /**
     * @generated from field: string version = 2;
     */
    version: string;
    /**
     * @generated from field: string custom_key = 3;
     */
    customKey: string;
    /**
     * @generated from field: int64 waiting = 4;
     */
    waiting: bigint;
    /**
     * @generated from field: int64 players_waiting = 5;
     */
    playersWaiting: bigint;
    /**
     * @generated from field: google.protobuf.Duration oldest_wait = 6;
     */
    oldestWait?: Duration | undefined;
    /**
     * @generated from field: int64 matches_formed = 7;
     */
    matchesFormed: bigint;
    /**
     * @generated from field: double mean_quality = 8;
     */
    meanQuality: number;
    /**
     * @generated from field: int32 ruleset_version = 9;
     */
    rulesetVersion: number;
    /**
     * The wait a ticket arriving now may expect; unset while the key's
     * recent history is too thin.
     *
     * @generated from field: cupid.v1.WaitEstimate estimate = 10;
     */
    estimate?: WaitEstimate | undefined;
};
/**
 * Describes the message cupid.v1.PoolStats.
 * Use `create(PoolStatsSchema)` to create a new message.
 */
export declare const PoolStatsSchema: GenMessage<PoolStats>;
/**
 * @generated from message cupid.v1.WatchTicketRequest
 */
export type WatchTicketRequest = Message<"cupid.v1.WatchTicketRequest"> & {
    /**
     * @generated from field: string id = 1;
     */
    id: string;
    /**
     * Events with a sequence number above this; 0 for all of them.
     *
     * @generated from field: int64 after_seq = 2;
     */
    afterSeq: bigint;
    /**
     * Keep the stream open past matched until the match is assigned a game
     * server (the assigned event ends it), for games whose backend assigns
     * matches (MatchService). A released match's requeued ticket is
     * followed on. Without it the stream ends with matched.
     *
     * @generated from field: bool wait_for_assignment = 3;
     */
    waitForAssignment: boolean;
};
/**
 * Describes the message cupid.v1.WatchTicketRequest.
 * Use `create(WatchTicketRequestSchema)` to create a new message.
 */
export declare const WatchTicketRequestSchema: GenMessage<WatchTicketRequest>;
/**
 * TicketEvent is one change to a ticket.
 *
 * @generated from message cupid.v1.TicketEvent
 */
export type TicketEvent = Message<"cupid.v1.TicketEvent"> & {
    /**
     * @generated from field: int64 seq = 1;
     */
    seq: bigint;
    /**
     * @generated from field: string ticket_id = 2;
     */
    ticketId: string;
    /**
     * created, proposed, matched, assigned, requeued, cancelled or expired.
     * proposed: the ticket is in a match that waits for its players to
     * accept it by match.accept_by (a queue with a ready check); matched
     * follows when all did, requeued or cancelled when one did not.
     *
     * @generated from field: string kind = 3;
     */
    kind: string;
    /**
     * @generated from field: google.protobuf.Timestamp at = 4;
     */
    at?: Timestamp | undefined;
    /**
     * Set when kind is proposed or matched.
     *
     * @generated from field: cupid.v1.Match match = 5;
     */
    match?: Match | undefined;
    /**
     * Why the server ended the ticket (cancelled or expired) when its owner
     * did not ask for it: replaced, matched in another queue, refused by a
     * new ruleset, its match not assigned in time. On requeued: why the
     * match was released.
     *
     * @generated from field: string reason = 6;
     */
    reason: string;
    /**
     * Set when kind is assigned: where the match is played.
     *
     * @generated from field: cupid.v1.Assignment assignment = 7;
     */
    assignment?: Assignment | undefined;
    /**
     * On a created or requeued event sent while it is the ticket's last: the
     * wait still to come, made as it is sent (never stored; unset while the
     * queue key's recent history is too thin).
     *
     * @generated from field: cupid.v1.WaitEstimate estimate = 8;
     */
    estimate?: WaitEstimate | undefined;
};
/**
 * Describes the message cupid.v1.TicketEvent.
 * Use `create(TicketEventSchema)` to create a new message.
 */
export declare const TicketEventSchema: GenMessage<TicketEvent>;
/**
 * @generated from message cupid.v1.Ticket
 */
export type Ticket = Message<"cupid.v1.Ticket"> & {
    /**
     * @generated from field: string id = 1;
     */
    id: string;
    /**
     * @generated from field: string queue = 2;
     */
    queue: string;
    /**
     * @generated from field: string version = 3;
     */
    version: string;
    /**
     * @generated from field: string custom_key = 4;
     */
    customKey: string;
    /**
     * @generated from field: repeated cupid.v1.Player players = 5;
     */
    players: Player[];
    /**
     * @generated from field: map<string, int32> latencies = 6;
     */
    latencies: {
        [key: string]: number;
    };
    /**
     * @generated from field: map<string, google.protobuf.Value> attributes = 7;
     */
    attributes: {
        [key: string]: Value;
    };
    /**
     * @generated from field: string request_id = 8;
     */
    requestId: string;
    /**
     * @generated from field: cupid.v1.TicketState state = 9;
     */
    state: TicketState;
    /**
     * @generated from field: google.protobuf.Timestamp created_at = 10;
     */
    createdAt?: Timestamp | undefined;
    /**
     * @generated from field: google.protobuf.Timestamp expires_at = 11;
     */
    expiresAt?: Timestamp | undefined;
    /**
     * How long it waited: until now while waiting, else until it was settled.
     *
     * @generated from field: google.protobuf.Duration waited = 12;
     */
    waited?: Duration | undefined;
    /**
     * @generated from field: string match_id = 13;
     */
    matchId: string;
    /**
     * @generated from field: cupid.v1.Match match = 14;
     */
    match?: Match | undefined;
    /**
     * Why a waiting ticket is still waiting.
     *
     * @generated from field: cupid.v1.WaitExplanation why = 15;
     */
    why?: WaitExplanation | undefined;
    /**
     * Why the server ended the ticket, when it did (see TicketEvent.reason).
     *
     * @generated from field: string reason = 16;
     */
    reason: string;
    /**
     * How much longer a waiting ticket may wait, from its queue key's recent
     * tickets (GetTicket only). Unset while that history is too thin.
     *
     * @generated from field: cupid.v1.WaitEstimate estimate = 17;
     */
    estimate?: WaitEstimate | undefined;
};
/**
 * Describes the message cupid.v1.Ticket.
 * Use `create(TicketSchema)` to create a new message.
 */
export declare const TicketSchema: GenMessage<Ticket>;
/**
 * WaitEstimate is a wait to come, with an interval: "about 40 s, 80 % within
 * 15-90 s". It comes from the waits of the queue key's tickets over the last
 * hour, counting tickets that left unmatched as waiting until they left
 * (docs/matches.md#wait-estimates).
 *
 * @generated from message cupid.v1.WaitEstimate
 */
export type WaitEstimate = Message<"cupid.v1.WaitEstimate"> & {
    /**
     * The median wait to come.
     *
     * @generated from field: google.protobuf.Duration expected = 1;
     */
    expected?: Duration | undefined;
    /**
     * The interval that holds `coverage` of the waits; `high` is unset when
     * too few tickets waited that long to know it.
     *
     * @generated from field: google.protobuf.Duration low = 2;
     */
    low?: Duration | undefined;
    /**
     * @generated from field: google.protobuf.Duration high = 3;
     */
    high?: Duration | undefined;
    /**
     * @generated from field: double coverage = 4;
     */
    coverage: number;
    /**
     * How many recent tickets waited at least as long as this one already
     * has: what the estimate rests on.
     *
     * @generated from field: int32 samples = 5;
     */
    samples: number;
};
/**
 * Describes the message cupid.v1.WaitEstimate.
 * Use `create(WaitEstimateSchema)` to create a new message.
 */
export declare const WaitEstimateSchema: GenMessage<WaitEstimate>;
/**
 * Assignment is where a match is played, as the backend that placed it
 * says (MatchService.AssignMatch).
 *
 * @generated from message cupid.v1.Assignment
 */
export type Assignment = Message<"cupid.v1.Assignment"> & {
    /**
     * The address players connect to (host:port, a URL…). Required.
     *
     * @generated from field: string server = 1;
     */
    server: string;
    /**
     * @generated from field: string session_id = 2;
     */
    sessionId: string;
    /**
     * Free-form data the game's clients read (a join token, a port…).
     *
     * @generated from field: map<string, string> connection = 3;
     */
    connection: {
        [key: string]: string;
    };
    /**
     * When it was assigned (set by the server).
     *
     * @generated from field: google.protobuf.Timestamp assigned_at = 4;
     */
    assignedAt?: Timestamp | undefined;
};
/**
 * Describes the message cupid.v1.Assignment.
 * Use `create(AssignmentSchema)` to create a new message.
 */
export declare const AssignmentSchema: GenMessage<Assignment>;
/**
 * Match is a group of tickets committed together, split into teams.
 *
 * @generated from message cupid.v1.Match
 */
export type Match = Message<"cupid.v1.Match"> & {
    /**
     * @generated from field: string id = 1;
     */
    id: string;
    /**
     * @generated from field: string queue = 2;
     */
    queue: string;
    /**
     * @generated from field: repeated cupid.v1.Team teams = 3;
     */
    teams: Team[];
    /**
     * @generated from field: cupid.v1.Quality quality = 4;
     */
    quality?: Quality | undefined;
    /**
     * @generated from field: google.protobuf.Timestamp created_at = 5;
     */
    createdAt?: Timestamp | undefined;
    /**
     * Where to host the match: the region every ticket accepts with the
     * lowest worst latency. Empty when the ruleset has no latency rules.
     *
     * @generated from field: string region = 6;
     */
    region: string;
    /**
     * The role each player plays, when the ruleset has role quotas.
     *
     * @generated from field: map<string, string> roles = 7;
     */
    roles: {
        [key: string]: string;
    };
    /**
     * The match as a game session: how many players each team holds at
     * most (teams list the players in it now), whether it is open to
     * backfill, and who left. See docs/matches.md.
     *
     * @generated from field: repeated int32 seats = 8;
     */
    seats: number[];
    /**
     * @generated from field: bool backfill = 9;
     */
    backfill: boolean;
    /**
     * @generated from field: repeated cupid.v1.Leaver left = 10;
     */
    left: Leaver[];
    /**
     * The match options a backend gave when it opened backfill (option name
     * -> its values); newcomers are compared with them. Unset otherwise.
     *
     * @generated from field: map<string, google.protobuf.ListValue> backfill_options = 12;
     */
    backfillOptions: {
        [key: string]: ListValue;
    };
    /**
     * The deadline of the match's ready check, when its queue asks players
     * to accept matches (acceptance in the configuration): every player must
     * accept it (MatchService.AcceptMatch) by then. Unset otherwise.
     *
     * @generated from field: google.protobuf.Timestamp accept_by = 11;
     */
    acceptBy?: Timestamp | undefined;
};
/**
 * Describes the message cupid.v1.Match.
 * Use `create(MatchSchema)` to create a new message.
 */
export declare const MatchSchema: GenMessage<Match>;
/**
 * Leaver is a player who left a game session.
 *
 * @generated from message cupid.v1.Leaver
 */
export type Leaver = Message<"cupid.v1.Leaver"> & {
    /**
     * @generated from field: string player_id = 1;
     */
    playerId: string;
    /**
     * The team (from 0) he left.
     *
     * @generated from field: int32 team = 2;
     */
    team: number;
    /**
     * @generated from field: google.protobuf.Timestamp at = 3;
     */
    at?: Timestamp | undefined;
    /**
     * True when his seat stayed open to backfill (he left within the
     * queue's leaver window); false when it closed with him.
     *
     * @generated from field: bool replaced = 4;
     */
    replaced: boolean;
};
/**
 * Describes the message cupid.v1.Leaver.
 * Use `create(LeaverSchema)` to create a new message.
 */
export declare const LeaverSchema: GenMessage<Leaver>;
/**
 * @generated from message cupid.v1.Team
 */
export type Team = Message<"cupid.v1.Team"> & {
    /**
     * @generated from field: repeated string ticket_ids = 1;
     */
    ticketIds: string[];
    /**
     * @generated from field: repeated string player_ids = 2;
     */
    playerIds: string[];
};
/**
 * Describes the message cupid.v1.Team.
 * Use `create(TeamSchema)` to create a new message.
 */
export declare const TeamSchema: GenMessage<Team>;
/**
 * Quality is one score in [0,1] and the per-criterion parts it came from.
 *
 * @generated from message cupid.v1.Quality
 */
export type Quality = Message<"cupid.v1.Quality"> & {
    /**
     * @generated from field: double score = 1;
     */
    score: number;
    /**
     * @generated from field: map<string, double> parts = 2;
     */
    parts: {
        [key: string]: number;
    };
};
/**
 * Describes the message cupid.v1.Quality.
 * Use `create(QualitySchema)` to create a new message.
 */
export declare const QualitySchema: GenMessage<Quality>;
/**
 * WaitExplanation answers "why am I still waiting?".
 *
 * @generated from message cupid.v1.WaitExplanation
 */
export type WaitExplanation = Message<"cupid.v1.WaitExplanation"> & {
    /**
     * @generated from field: string summary = 1;
     */
    summary: string;
    /**
     * @generated from field: repeated cupid.v1.RuleBlock blocks = 2;
     */
    blocks: RuleBlock[];
    /**
     * When the next relaxation step widens the rules; unset when none is due.
     *
     * @generated from field: google.protobuf.Timestamp next_relaxation = 3;
     */
    nextRelaxation?: Timestamp | undefined;
    /**
     * @generated from field: int64 candidates = 4;
     */
    candidates: bigint;
    /**
     * Relaxations the ticket itself may accept to be matched sooner, best
     * first (TicketService.AcceptOffer).
     *
     * @generated from field: repeated cupid.v1.Offer offers = 5;
     */
    offers: Offer[];
};
/**
 * Describes the message cupid.v1.WaitExplanation.
 * Use `create(WaitExplanationSchema)` to create a new message.
 */
export declare const WaitExplanationSchema: GenMessage<WaitExplanation>;
/**
 * Offer is a relaxation of a waiting ticket's own constraints, with its
 * effect: "accept eu-west at +40 ms (100 ms): 3 more candidates", "accept
 * mode ctf: 2 more candidates".
 *
 * @generated from message cupid.v1.Offer
 */
export type Offer = Message<"cupid.v1.Offer"> & {
    /**
     * What AcceptOffer takes.
     *
     * @generated from field: string id = 1;
     */
    id: string;
    /**
     * The offer in a sentence for the player.
     *
     * @generated from field: string text = 2;
     */
    text: string;
    /**
     * The region the ticket would play in, and how many ms above the
     * current latency range its own latency there is.
     *
     * @generated from field: string region = 3;
     */
    region: string;
    /**
     * @generated from field: int32 extra_ms = 4;
     */
    extraMs: number;
    /**
     * Waiting tickets, and their players, that would become compatible.
     *
     * @generated from field: int64 candidates = 5;
     */
    candidates: bigint;
    /**
     * @generated from field: int64 players = 6;
     */
    players: bigint;
    /**
     * True when a match can then form at once.
     *
     * @generated from field: bool forms_match = 7;
     */
    formsMatch: boolean;
    /**
     * The wait to expect after accepting: zero when a match can form at
     * once, else a new ticket's estimated wait in this queue key (unset when
     * its history is too thin).
     *
     * @generated from field: google.protobuf.Duration estimate = 8;
     */
    estimate?: Duration | undefined;
    /**
     * When the range would reach the region by itself (unset: never).
     *
     * @generated from field: google.protobuf.Timestamp reached = 9;
     */
    reached?: Timestamp | undefined;
    /**
     * A choice offer: the value the ticket would add to its match option
     * (the game modes or maps it accepts). Empty for a latency offer, as
     * region is for a choice offer.
     *
     * @generated from field: string option = 10;
     */
    option: string;
    /**
     * @generated from field: string value = 11;
     */
    value: string;
};
/**
 * Describes the message cupid.v1.Offer.
 * Use `create(OfferSchema)` to create a new message.
 */
export declare const OfferSchema: GenMessage<Offer>;
/**
 * RuleBlock says how many otherwise possible partners a rule keeps out.
 *
 * @generated from message cupid.v1.RuleBlock
 */
export type RuleBlock = Message<"cupid.v1.RuleBlock"> & {
    /**
     * @generated from field: string rule = 1;
     */
    rule: string;
    /**
     * @generated from field: int64 excluded = 2;
     */
    excluded: bigint;
    /**
     * @generated from field: string detail = 3;
     */
    detail: string;
};
/**
 * Describes the message cupid.v1.RuleBlock.
 * Use `create(RuleBlockSchema)` to create a new message.
 */
export declare const RuleBlockSchema: GenMessage<RuleBlock>;
/**
 * TicketState is where a ticket is in its life.
 *
 * @generated from enum cupid.v1.TicketState
 */
export declare enum TicketState {
    /**
     * @generated from enum value: TICKET_STATE_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * @generated from enum value: TICKET_STATE_WAITING = 1;
     */
    WAITING = 1,
    /**
     * @generated from enum value: TICKET_STATE_MATCHED = 2;
     */
    MATCHED = 2,
    /**
     * @generated from enum value: TICKET_STATE_CANCELLED = 3;
     */
    CANCELLED = 3,
    /**
     * @generated from enum value: TICKET_STATE_EXPIRED = 4;
     */
    EXPIRED = 4
}
/**
 * Describes the enum cupid.v1.TicketState.
 */
export declare const TicketStateSchema: GenEnum<TicketState>;
/**
 * TicketService takes tickets in and tells their owners when they are matched.
 * Every call is served over gRPC, gRPC-Web and Connect (JSON over HTTP) on
 * one port.
 *
 * @generated from service cupid.v1.TicketService
 */
export declare const TicketService: GenService<{
    /**
     * CreateTicket stores a ticket durably and puts it in its pool. With a
     * request_id the call is idempotent: a retry returns the first ticket
     * (the same request id with a different body is refused). A player has
     * at most one live ticket per queue: a second is refused with
     * already_exists naming the player and his ticket, unless replace is set.
     *
     * @generated from rpc cupid.v1.TicketService.CreateTicket
     */
    createTicket: {
        methodKind: "unary";
        input: typeof CreateTicketRequestSchema;
        output: typeof CreateTicketResponseSchema;
    };
    /**
     * CreateTickets creates up to 1,000 tickets in one call and one durable
     * write, for a game backend that queues players on their behalf. Each
     * ticket has its own result, in request order: one refused ticket (its
     * error names it as tickets[3].…) does not refuse the others.
     *
     * @generated from rpc cupid.v1.TicketService.CreateTickets
     */
    createTickets: {
        methodKind: "unary";
        input: typeof CreateTicketsRequestSchema;
        output: typeof CreateTicketsResponseSchema;
    };
    /**
     * GetTicket returns a ticket: its state, how long it has waited, its
     * match, and why it is still waiting.
     *
     * @generated from rpc cupid.v1.TicketService.GetTicket
     */
    getTicket: {
        methodKind: "unary";
        input: typeof GetTicketRequestSchema;
        output: typeof GetTicketResponseSchema;
    };
    /**
     * CancelTicket takes a waiting ticket out of its pool.
     *
     * @generated from rpc cupid.v1.TicketService.CancelTicket
     */
    cancelTicket: {
        methodKind: "unary";
        input: typeof CancelTicketRequestSchema;
        output: typeof CancelTicketResponseSchema;
    };
    /**
     * AcceptOffer has a waiting ticket accept one of the offers its `why`
     * lists (WaitExplanation.offers): the ticket is changed as the offer says
     * and keeps its id, its creation time and so its age. An offer that no
     * longer holds is refused with failed_precondition.
     *
     * @generated from rpc cupid.v1.TicketService.AcceptOffer
     */
    acceptOffer: {
        methodKind: "unary";
        input: typeof AcceptOfferRequestSchema;
        output: typeof AcceptOfferResponseSchema;
    };
    /**
     * CancelTickets cancels up to 1,000 tickets in one call. Each ticket has
     * its own result, in request order: one that cannot be cancelled (its
     * error names it as ids[3]) does not stop the others.
     *
     * @generated from rpc cupid.v1.TicketService.CancelTickets
     */
    cancelTickets: {
        methodKind: "unary";
        input: typeof CancelTicketsRequestSchema;
        output: typeof CancelTicketsResponseSchema;
    };
    /**
     * ListTickets lists a queue's tickets, oldest first.
     *
     * @generated from rpc cupid.v1.TicketService.ListTickets
     */
    listTickets: {
        methodKind: "unary";
        input: typeof ListTicketsRequestSchema;
        output: typeof ListTicketsResponseSchema;
    };
    /**
     * QueueStats reports each pool: how many wait, the oldest wait, matches
     * formed and their mean quality.
     *
     * @generated from rpc cupid.v1.TicketService.QueueStats
     */
    queueStats: {
        methodKind: "unary";
        input: typeof QueueStatsRequestSchema;
        output: typeof QueueStatsResponseSchema;
    };
    /**
     * WatchTicket streams a ticket's events: first those after after_seq that
     * already happened (so a reconnecting watcher misses nothing), then live
     * ones, ending with the match, the cancellation or the expiry.
     *
     * @generated from rpc cupid.v1.TicketService.WatchTicket
     */
    watchTicket: {
        methodKind: "server_streaming";
        input: typeof WatchTicketRequestSchema;
        output: typeof TicketEventSchema;
    };
}>;
