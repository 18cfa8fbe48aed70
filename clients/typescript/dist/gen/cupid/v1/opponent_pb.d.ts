import type { GenEnum, GenFile, GenMessage, GenService } from "@bufbuild/protobuf/codegenv2";
import type { Timestamp, Value } from "@bufbuild/protobuf/wkt";
import type { Message } from "@bufbuild/protobuf";
/**
 * Describes the file cupid/v1/opponent.proto.
 */
export declare const file_cupid_v1_opponent: GenFile;
/**
 * PlayerModel is what the finder knows of a player, or of an attacker in a
 * query. Labels and attributes share one namespace (a name may appear in
 * only one of the two maps); they are split so a reader sees which values
 * pick buckets. Values are numbers, strings or lists of strings.
 *
 * @generated from message cupid.v1.PlayerModel
 */
export type PlayerModel = Message<"cupid.v1.PlayerModel"> & {
    /**
     * @generated from field: string id = 1;
     */
    id: string;
    /**
     * @generated from field: double mmr = 2;
     */
    mmr: number;
    /**
     * Values the bucketing strategies read (league, region, …).
     *
     * @generated from field: map<string, google.protobuf.Value> labels = 3;
     */
    labels: {
        [key: string]: Value;
    };
    /**
     * Values the quality expression reads (guild, losing_streak, …).
     *
     * @generated from field: map<string, google.protobuf.Value> attributes = 4;
     */
    attributes: {
        [key: string]: Value;
    };
    /**
     * Extra MMRs for players with several entries (one per defence set-up),
     * each with the same labels and attributes as the first.
     *
     * @generated from field: repeated double extra_mmrs = 5;
     */
    extraMmrs: number[];
    /**
     * Entries, for players with several entries that differ in more than
     * their MMR. Give either entries or mmr/labels/attributes/extra_mmrs.
     * Not for attackers.
     *
     * @generated from field: repeated cupid.v1.PlayerEntry entries = 6;
     */
    entries: PlayerEntry[];
};
/**
 * Describes the message cupid.v1.PlayerModel.
 * Use `create(PlayerModelSchema)` to create a new message.
 */
export declare const PlayerModelSchema: GenMessage<PlayerModel>;
/**
 * PlayerEntry is one way to fight a player: a defence MMR, labels and
 * attributes.
 *
 * @generated from message cupid.v1.PlayerEntry
 */
export type PlayerEntry = Message<"cupid.v1.PlayerEntry"> & {
    /**
     * @generated from field: double mmr = 1;
     */
    mmr: number;
    /**
     * @generated from field: map<string, google.protobuf.Value> labels = 2;
     */
    labels: {
        [key: string]: Value;
    };
    /**
     * @generated from field: map<string, google.protobuf.Value> attributes = 3;
     */
    attributes: {
        [key: string]: Value;
    };
};
/**
 * Describes the message cupid.v1.PlayerEntry.
 * Use `create(PlayerEntrySchema)` to create a new message.
 */
export declare const PlayerEntrySchema: GenMessage<PlayerEntry>;
/**
 * @generated from message cupid.v1.UpdatePlayerRequest
 */
export type UpdatePlayerRequest = Message<"cupid.v1.UpdatePlayerRequest"> & {
    /**
     * @generated from field: string finder = 1;
     */
    finder: string;
    /**
     * @generated from field: string player_id = 2;
     */
    playerId: string;
    /**
     * Absent: the player is no longer eligible.
     *
     * @generated from field: cupid.v1.PlayerModel model = 3;
     */
    model?: PlayerModel | undefined;
};
/**
 * Describes the message cupid.v1.UpdatePlayerRequest.
 * Use `create(UpdatePlayerRequestSchema)` to create a new message.
 */
export declare const UpdatePlayerRequestSchema: GenMessage<UpdatePlayerRequest>;
/**
 * @generated from message cupid.v1.UpdatePlayerResponse
 */
export type UpdatePlayerResponse = Message<"cupid.v1.UpdatePlayerResponse"> & {
    /**
     * added, updated, ignored (bucket well filled) or removed.
     *
     * @generated from field: string outcome = 1;
     */
    outcome: string;
    /**
     * What happened entry by entry.
     *
     * @generated from field: int32 inserted = 2;
     */
    inserted: number;
    /**
     * @generated from field: int32 updated = 3;
     */
    updated: number;
    /**
     * @generated from field: int32 removed = 4;
     */
    removed: number;
    /**
     * Other players' entries replaced by this one (replace-on-insert).
     *
     * @generated from field: int32 evicted = 5;
     */
    evicted: number;
    /**
     * @generated from field: int32 ignored = 6;
     */
    ignored: number;
    /**
     * The model was written to the finder's player table.
     *
     * @generated from field: bool stored = 7;
     */
    stored: boolean;
};
/**
 * Describes the message cupid.v1.UpdatePlayerResponse.
 * Use `create(UpdatePlayerResponseSchema)` to create a new message.
 */
export declare const UpdatePlayerResponseSchema: GenMessage<UpdatePlayerResponse>;
/**
 * @generated from message cupid.v1.FindOpponentRequest
 */
export type FindOpponentRequest = Message<"cupid.v1.FindOpponentRequest"> & {
    /**
     * @generated from field: string finder = 1;
     */
    finder: string;
    /**
     * @generated from field: cupid.v1.PlayerModel attacker = 2;
     */
    attacker?: PlayerModel | undefined;
    /**
     * Each retry widens the MMR range.
     *
     * @generated from field: int32 retries = 3;
     */
    retries: number;
    /**
     * @generated from field: repeated string excluded_ids = 4;
     */
    excludedIds: string[];
    /**
     * @generated from field: bool return_model = 5;
     */
    returnModel: boolean;
    /**
     * Hold the defender found for this attacker until the attack is
     * confirmed or released, or the finder's reservations.hold has passed.
     * The finder must take reservations.
     *
     * @generated from field: bool reserve = 6;
     */
    reserve: boolean;
};
/**
 * Describes the message cupid.v1.FindOpponentRequest.
 * Use `create(FindOpponentRequestSchema)` to create a new message.
 */
export declare const FindOpponentRequestSchema: GenMessage<FindOpponentRequest>;
/**
 * @generated from message cupid.v1.FindOpponentResponse
 */
export type FindOpponentResponse = Message<"cupid.v1.FindOpponentResponse"> & {
    /**
     * @generated from field: cupid.v1.OpponentResult result = 1;
     */
    result: OpponentResult;
    /**
     * @generated from field: string player_id = 2;
     */
    playerId: string;
    /**
     * The chosen entry, when asked for (or the finder always returns it).
     *
     * @generated from field: cupid.v1.PlayerModel model = 3;
     */
    model?: PlayerModel | undefined;
    /**
     * @generated from field: double score = 4;
     */
    score: number;
    /**
     * Cached entries the query looked at.
     *
     * @generated from field: int32 examined = 5;
     */
    examined: number;
    /**
     * The defender left the cache because its bucket was well filled, so
     * others are not sent to attack them too.
     *
     * @generated from field: bool removed_after_offer = 6;
     */
    removedAfterOffer: boolean;
    /**
     * The reservation holding the defender for the attacker, when the query
     * reserved (or the finder reserves every offer).
     *
     * @generated from field: cupid.v1.Reservation reservation = 7;
     */
    reservation?: Reservation | undefined;
};
/**
 * Describes the message cupid.v1.FindOpponentResponse.
 * Use `create(FindOpponentResponseSchema)` to create a new message.
 */
export declare const FindOpponentResponseSchema: GenMessage<FindOpponentResponse>;
/**
 * Reservation is a defender held for an attacker.
 *
 * @generated from message cupid.v1.Reservation
 */
export type Reservation = Message<"cupid.v1.Reservation"> & {
    /**
     * @generated from field: string id = 1;
     */
    id: string;
    /**
     * @generated from field: string attacker_id = 2;
     */
    attackerId: string;
    /**
     * @generated from field: string defender_id = 3;
     */
    defenderId: string;
    /**
     * @generated from field: google.protobuf.Timestamp expires_at = 4;
     */
    expiresAt?: Timestamp | undefined;
};
/**
 * Describes the message cupid.v1.Reservation.
 * Use `create(ReservationSchema)` to create a new message.
 */
export declare const ReservationSchema: GenMessage<Reservation>;
/**
 * @generated from message cupid.v1.ConfirmAttackRequest
 */
export type ConfirmAttackRequest = Message<"cupid.v1.ConfirmAttackRequest"> & {
    /**
     * @generated from field: string finder = 1;
     */
    finder: string;
    /**
     * @generated from field: string reservation_id = 2;
     */
    reservationId: string;
    /**
     * The reservation's attacker. A player token must give its own id; a
     * server key may leave it empty.
     *
     * @generated from field: string attacker_id = 3;
     */
    attackerId: string;
};
/**
 * Describes the message cupid.v1.ConfirmAttackRequest.
 * Use `create(ConfirmAttackRequestSchema)` to create a new message.
 */
export declare const ConfirmAttackRequestSchema: GenMessage<ConfirmAttackRequest>;
/**
 * @generated from message cupid.v1.ConfirmAttackResponse
 */
export type ConfirmAttackResponse = Message<"cupid.v1.ConfirmAttackResponse"> & {
    /**
     * @generated from field: cupid.v1.Reservation reservation = 1;
     */
    reservation?: Reservation | undefined;
    /**
     * When the defender's shield ends; absent without one.
     *
     * @generated from field: google.protobuf.Timestamp shield_until = 2;
     */
    shieldUntil?: Timestamp | undefined;
    /**
     * The offered entry left the cache (offer-removal threshold).
     *
     * @generated from field: bool removed_after_offer = 3;
     */
    removedAfterOffer: boolean;
};
/**
 * Describes the message cupid.v1.ConfirmAttackResponse.
 * Use `create(ConfirmAttackResponseSchema)` to create a new message.
 */
export declare const ConfirmAttackResponseSchema: GenMessage<ConfirmAttackResponse>;
/**
 * @generated from message cupid.v1.ReleaseReservationRequest
 */
export type ReleaseReservationRequest = Message<"cupid.v1.ReleaseReservationRequest"> & {
    /**
     * @generated from field: string finder = 1;
     */
    finder: string;
    /**
     * @generated from field: string reservation_id = 2;
     */
    reservationId: string;
    /**
     * As in ConfirmAttackRequest.
     *
     * @generated from field: string attacker_id = 3;
     */
    attackerId: string;
};
/**
 * Describes the message cupid.v1.ReleaseReservationRequest.
 * Use `create(ReleaseReservationRequestSchema)` to create a new message.
 */
export declare const ReleaseReservationRequestSchema: GenMessage<ReleaseReservationRequest>;
/**
 * @generated from message cupid.v1.ReleaseReservationResponse
 */
export type ReleaseReservationResponse = Message<"cupid.v1.ReleaseReservationResponse"> & {
    /**
     * @generated from field: cupid.v1.Reservation reservation = 1;
     */
    reservation?: Reservation | undefined;
};
/**
 * Describes the message cupid.v1.ReleaseReservationResponse.
 * Use `create(ReleaseReservationResponseSchema)` to create a new message.
 */
export declare const ReleaseReservationResponseSchema: GenMessage<ReleaseReservationResponse>;
/**
 * @generated from message cupid.v1.SetPlayerOnlineRequest
 */
export type SetPlayerOnlineRequest = Message<"cupid.v1.SetPlayerOnlineRequest"> & {
    /**
     * @generated from field: string finder = 1;
     */
    finder: string;
    /**
     * @generated from field: string player_id = 2;
     */
    playerId: string;
    /**
     * @generated from field: bool online = 3;
     */
    online: boolean;
};
/**
 * Describes the message cupid.v1.SetPlayerOnlineRequest.
 * Use `create(SetPlayerOnlineRequestSchema)` to create a new message.
 */
export declare const SetPlayerOnlineRequestSchema: GenMessage<SetPlayerOnlineRequest>;
/**
 * @generated from message cupid.v1.SetPlayerOnlineResponse
 */
export type SetPlayerOnlineResponse = Message<"cupid.v1.SetPlayerOnlineResponse"> & {
    /**
     * @generated from field: bool online = 1;
     */
    online: boolean;
    /**
     * The flag was written to the store (the finder stores its players).
     *
     * @generated from field: bool stored = 2;
     */
    stored: boolean;
};
/**
 * Describes the message cupid.v1.SetPlayerOnlineResponse.
 * Use `create(SetPlayerOnlineResponseSchema)` to create a new message.
 */
export declare const SetPlayerOnlineResponseSchema: GenMessage<SetPlayerOnlineResponse>;
/**
 * @generated from message cupid.v1.FinderStatsRequest
 */
export type FinderStatsRequest = Message<"cupid.v1.FinderStatsRequest"> & {
    /**
     * @generated from field: string finder = 1;
     */
    finder: string;
    /**
     * Also list every bucket's fill.
     *
     * @generated from field: bool include_buckets = 2;
     */
    includeBuckets: boolean;
};
/**
 * Describes the message cupid.v1.FinderStatsRequest.
 * Use `create(FinderStatsRequestSchema)` to create a new message.
 */
export declare const FinderStatsRequestSchema: GenMessage<FinderStatsRequest>;
/**
 * @generated from message cupid.v1.FinderStatsResponse
 */
export type FinderStatsResponse = Message<"cupid.v1.FinderStatsResponse"> & {
    /**
     * @generated from field: string finder = 1;
     */
    finder: string;
    /**
     * Distinct players cached.
     *
     * @generated from field: int64 players = 2;
     */
    players: bigint;
    /**
     * Slots over all buckets, never above cache_size.
     *
     * @generated from field: int64 capacity = 3;
     */
    capacity: bigint;
    /**
     * @generated from field: int64 buckets = 4;
     */
    buckets: bigint;
    /**
     * @generated from field: int64 queries = 5;
     */
    queries: bigint;
    /**
     * @generated from field: int64 successes = 6;
     */
    successes: bigint;
    /**
     * @generated from field: int64 fakes = 7;
     */
    fakes: bigint;
    /**
     * @generated from field: int64 none_found = 8;
     */
    noneFound: bigint;
    /**
     * Cached entries (equal to players unless several entries per player).
     *
     * @generated from field: int64 entries = 9;
     */
    entries: bigint;
    /**
     * The configured bound on capacity (player_cache_size).
     *
     * @generated from field: int64 cache_size = 10;
     */
    cacheSize: bigint;
    /**
     * A sizing model is in use (made by a rebalance or loaded at start).
     *
     * @generated from field: bool has_sizing_model = 11;
     */
    hasSizingModel: boolean;
    /**
     * @generated from field: int64 invalid_queries = 12;
     */
    invalidQueries: bigint;
    /**
     * @generated from field: int64 inserted = 13;
     */
    inserted: bigint;
    /**
     * @generated from field: int64 updated = 14;
     */
    updated: bigint;
    /**
     * @generated from field: int64 removed = 15;
     */
    removed: bigint;
    /**
     * @generated from field: int64 evicted = 16;
     */
    evicted: bigint;
    /**
     * @generated from field: int64 ignored = 17;
     */
    ignored: bigint;
    /**
     * @generated from field: int64 offer_removed = 18;
     */
    offerRemoved: bigint;
    /**
     * @generated from field: int64 rebalances = 19;
     */
    rebalances: bigint;
    /**
     * @generated from field: bool scan_enabled = 20;
     */
    scanEnabled: boolean;
    /**
     * @generated from field: int64 scan_batches = 21;
     */
    scanBatches: bigint;
    /**
     * Full passes over the player table.
     *
     * @generated from field: int64 scan_passes = 22;
     */
    scanPasses: bigint;
    /**
     * Rows of the player table taken into the cache by the scan.
     *
     * @generated from field: int64 scanned_rows = 23;
     */
    scannedRows: bigint;
    /**
     * @generated from field: bool stores_players = 24;
     */
    storesPlayers: boolean;
    /**
     * @generated from field: repeated cupid.v1.FinderBucket bucket_fill = 25;
     */
    bucketFill: FinderBucket[];
    /**
     * Live reservations, players shielded and players online now.
     *
     * @generated from field: int64 held = 26;
     */
    held: bigint;
    /**
     * @generated from field: int64 shielded = 27;
     */
    shielded: bigint;
    /**
     * @generated from field: int64 online = 28;
     */
    online: bigint;
    /**
     * Reservations made, confirmed, released and lapsed since the start.
     *
     * @generated from field: int64 reserved = 29;
     */
    reserved: bigint;
    /**
     * @generated from field: int64 confirmed = 30;
     */
    confirmed: bigint;
    /**
     * @generated from field: int64 released = 31;
     */
    released: bigint;
    /**
     * @generated from field: int64 expired = 32;
     */
    expired: bigint;
};
/**
 * Describes the message cupid.v1.FinderStatsResponse.
 * Use `create(FinderStatsResponseSchema)` to create a new message.
 */
export declare const FinderStatsResponseSchema: GenMessage<FinderStatsResponse>;
/**
 * FinderBucket is one bucket's fill.
 *
 * @generated from message cupid.v1.FinderBucket
 */
export type FinderBucket = Message<"cupid.v1.FinderBucket"> & {
    /**
     * Stable key: the MMR bucket and the labels, e.g. mmr=3|league="gold".
     *
     * @generated from field: string key = 1;
     */
    key: string;
    /**
     * @generated from field: double mmr_low = 2;
     */
    mmrLow: number;
    /**
     * @generated from field: double mmr_high = 3;
     */
    mmrHigh: number;
    /**
     * @generated from field: int64 size = 4;
     */
    size: bigint;
    /**
     * @generated from field: int64 entries = 5;
     */
    entries: bigint;
};
/**
 * Describes the message cupid.v1.FinderBucket.
 * Use `create(FinderBucketSchema)` to create a new message.
 */
export declare const FinderBucketSchema: GenMessage<FinderBucket>;
/**
 * @generated from message cupid.v1.RebalanceRequest
 */
export type RebalanceRequest = Message<"cupid.v1.RebalanceRequest"> & {
    /**
     * @generated from field: string finder = 1;
     */
    finder: string;
};
/**
 * Describes the message cupid.v1.RebalanceRequest.
 * Use `create(RebalanceRequestSchema)` to create a new message.
 */
export declare const RebalanceRequestSchema: GenMessage<RebalanceRequest>;
/**
 * @generated from message cupid.v1.RebalanceResponse
 */
export type RebalanceResponse = Message<"cupid.v1.RebalanceResponse"> & {
    /**
     * @generated from field: int64 buckets = 1;
     */
    buckets: bigint;
    /**
     * A new sizing model was made, applied and stored; false when too few
     * players were sampled since the last one (sizing.min_samples).
     *
     * @generated from field: bool resized = 2;
     */
    resized: boolean;
    /**
     * Sampled labels the model came from.
     *
     * @generated from field: double samples = 3;
     */
    samples: number;
};
/**
 * Describes the message cupid.v1.RebalanceResponse.
 * Use `create(RebalanceResponseSchema)` to create a new message.
 */
export declare const RebalanceResponseSchema: GenMessage<RebalanceResponse>;
/**
 * @generated from message cupid.v1.RemovePlayerRequest
 */
export type RemovePlayerRequest = Message<"cupid.v1.RemovePlayerRequest"> & {
    /**
     * @generated from field: string finder = 1;
     */
    finder: string;
    /**
     * @generated from field: string player_id = 2;
     */
    playerId: string;
};
/**
 * Describes the message cupid.v1.RemovePlayerRequest.
 * Use `create(RemovePlayerRequestSchema)` to create a new message.
 */
export declare const RemovePlayerRequestSchema: GenMessage<RemovePlayerRequest>;
/**
 * @generated from message cupid.v1.RemovePlayerResponse
 */
export type RemovePlayerResponse = Message<"cupid.v1.RemovePlayerResponse"> & {
    /**
     * Entries dropped from the cache.
     *
     * @generated from field: int32 removed = 1;
     */
    removed: number;
};
/**
 * Describes the message cupid.v1.RemovePlayerResponse.
 * Use `create(RemovePlayerResponseSchema)` to create a new message.
 */
export declare const RemovePlayerResponseSchema: GenMessage<RemovePlayerResponse>;
/**
 * @generated from enum cupid.v1.OpponentResult
 */
export declare enum OpponentResult {
    /**
     * @generated from enum value: OPPONENT_RESULT_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * @generated from enum value: OPPONENT_RESULT_SUCCESS = 1;
     */
    SUCCESS = 1,
    /**
     * @generated from enum value: OPPONENT_RESULT_NONE_FOUND = 2;
     */
    NONE_FOUND = 2,
    /**
     * @generated from enum value: OPPONENT_RESULT_FAKE_OPPONENT = 3;
     */
    FAKE_OPPONENT = 3
}
/**
 * Describes the enum cupid.v1.OpponentResult.
 */
export declare const OpponentResultSchema: GenEnum<OpponentResult>;
/**
 * OpponentService answers "whom should this player attack?" from an
 * in-memory cache of player models kept in MMR buckets, in microseconds.
 *
 * @generated from service cupid.v1.OpponentService
 */
export declare const OpponentService: GenService<{
    /**
     * UpdatePlayer adds or replaces a player's model; without a model the
     * player becomes ineligible and leaves the cache.
     *
     * @generated from rpc cupid.v1.OpponentService.UpdatePlayer
     */
    updatePlayer: {
        methodKind: "unary";
        input: typeof UpdatePlayerRequestSchema;
        output: typeof UpdatePlayerResponseSchema;
    };
    /**
     * FindOpponent returns the best defender for an attacker.
     *
     * @generated from rpc cupid.v1.OpponentService.FindOpponent
     */
    findOpponent: {
        methodKind: "unary";
        input: typeof FindOpponentRequestSchema;
        output: typeof FindOpponentResponseSchema;
    };
    /**
     * FinderStats describes a finder's cache.
     *
     * @generated from rpc cupid.v1.OpponentService.FinderStats
     */
    finderStats: {
        methodKind: "unary";
        input: typeof FinderStatsRequestSchema;
        output: typeof FinderStatsResponseSchema;
    };
    /**
     * Rebalance resizes the buckets to the players seen so far and stores
     * the sizing model.
     *
     * @generated from rpc cupid.v1.OpponentService.Rebalance
     */
    rebalance: {
        methodKind: "unary";
        input: typeof RebalanceRequestSchema;
        output: typeof RebalanceResponseSchema;
    };
    /**
     * RemovePlayer drops every entry of a player from the cache and the
     * player table. With several entries per player an update without a
     * model is ignored (as in Metaplay's matchmaker), so this is how such a
     * player leaves; it works in every mode.
     *
     * @generated from rpc cupid.v1.OpponentService.RemovePlayer
     */
    removePlayer: {
        methodKind: "unary";
        input: typeof RemovePlayerRequestSchema;
        output: typeof RemovePlayerResponseSchema;
    };
    /**
     * ConfirmAttack records that the attack of a reservation happened: the
     * hold ends and the defender's shield starts.
     *
     * @generated from rpc cupid.v1.OpponentService.ConfirmAttack
     */
    confirmAttack: {
        methodKind: "unary";
        input: typeof ConfirmAttackRequestSchema;
        output: typeof ConfirmAttackResponseSchema;
    };
    /**
     * ReleaseReservation ends a reservation without an attack: the defender
     * may be offered again at once.
     *
     * @generated from rpc cupid.v1.OpponentService.ReleaseReservation
     */
    releaseReservation: {
        methodKind: "unary";
        input: typeof ReleaseReservationRequestSchema;
        output: typeof ReleaseReservationResponseSchema;
    };
    /**
     * SetPlayerOnline sets or clears a player's online flag; while it is set
     * the player is never offered.
     *
     * @generated from rpc cupid.v1.OpponentService.SetPlayerOnline
     */
    setPlayerOnline: {
        methodKind: "unary";
        input: typeof SetPlayerOnlineRequestSchema;
        output: typeof SetPlayerOnlineResponseSchema;
    };
}>;
