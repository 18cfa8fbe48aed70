import type { GenFile, GenMessage, GenService } from "@bufbuild/protobuf/codegenv2";
import type { Duration, Timestamp } from "@bufbuild/protobuf/wkt";
import type { Message } from "@bufbuild/protobuf";
/**
 * Describes the file cupid/v1/rating.proto.
 */
export declare const file_cupid_v1_rating: GenFile;
/**
 * @generated from message cupid.v1.ReportResultRequest
 */
export type ReportResultRequest = Message<"cupid.v1.ReportResultRequest"> & {
    /**
     * @generated from field: string match_id = 1;
     */
    matchId: string;
    /**
     * One place per team of the match, in its order; lower is better, equal
     * places tie (e.g. [1, 2]: the first team won).
     *
     * @generated from field: repeated int32 team_places = 2;
     */
    teamPlaces: number[];
    /**
     * Or a place for every player: a free-for-all, each rated on his own.
     *
     * @generated from field: map<string, int32> player_places = 3;
     */
    playerPlaces: {
        [key: string]: number;
    };
    /**
     * Scores, kept with the result; alone (without places) they give the
     * places, higher first.
     *
     * @generated from field: repeated double team_scores = 4;
     */
    teamScores: number[];
    /**
     * @generated from field: map<string, double> player_scores = 5;
     */
    playerScores: {
        [key: string]: number;
    };
    /**
     * Players who left before the end: rated as if their side lost.
     *
     * @generated from field: repeated string leavers = 6;
     */
    leavers: string[];
};
/**
 * Describes the message cupid.v1.ReportResultRequest.
 * Use `create(ReportResultRequestSchema)` to create a new message.
 */
export declare const ReportResultRequestSchema: GenMessage<ReportResultRequest>;
/**
 * @generated from message cupid.v1.ReportResultResponse
 */
export type ReportResultResponse = Message<"cupid.v1.ReportResultResponse"> & {
    /**
     * @generated from field: string rating = 1;
     */
    rating: string;
    /**
     * Every player's change, team by team.
     *
     * @generated from field: repeated cupid.v1.RatingChange changes = 2;
     */
    changes: RatingChange[];
    /**
     * True when the match had this result already (nothing changed now).
     *
     * @generated from field: bool repeated = 3;
     */
    repeated: boolean;
};
/**
 * Describes the message cupid.v1.ReportResultResponse.
 * Use `create(ReportResultResponseSchema)` to create a new message.
 */
export declare const ReportResultResponseSchema: GenMessage<ReportResultResponse>;
/**
 * RatingChange is what one result did to one player.
 *
 * @generated from message cupid.v1.RatingChange
 */
export type RatingChange = Message<"cupid.v1.RatingChange"> & {
    /**
     * @generated from field: string player_id = 1;
     */
    playerId: string;
    /**
     * @generated from field: int32 team = 2;
     */
    team: number;
    /**
     * @generated from field: int32 place = 3;
     */
    place: number;
    /**
     * What he scored against the other sides (1 all won, 0 all lost) and
     * what his rating expected.
     *
     * @generated from field: double score = 4;
     */
    score: number;
    /**
     * @generated from field: double expected = 5;
     */
    expected: number;
    /**
     * @generated from field: bool leaver = 6;
     */
    leaver: boolean;
    /**
     * The conservative value (μ−kσ, or R−k·RD) before and after.
     *
     * @generated from field: double before = 7;
     */
    before: number;
    /**
     * @generated from field: double after = 8;
     */
    after: number;
    /**
     * Games waiting for the end of a Glicko-2 rating period.
     *
     * @generated from field: int32 pending = 9;
     */
    pending: number;
    /**
     * @generated from field: string league_before = 10;
     */
    leagueBefore: string;
    /**
     * @generated from field: string league_after = 11;
     */
    leagueAfter: string;
    /**
     * @generated from field: cupid.v1.FairPlayFlags flags = 12;
     */
    flags?: FairPlayFlags | undefined;
    /**
     * @generated from field: string match_id = 13;
     */
    matchId: string;
    /**
     * @generated from field: google.protobuf.Timestamp at = 14;
     */
    at?: Timestamp | undefined;
    /**
     * The sequence number of the history line (ListRatingHistory's cursor).
     *
     * @generated from field: int64 seq = 15;
     */
    seq: bigint;
};
/**
 * Describes the message cupid.v1.RatingChange.
 * Use `create(RatingChangeSchema)` to create a new message.
 */
export declare const RatingChangeSchema: GenMessage<RatingChange>;
/**
 * FairPlayFlags are the fair-play checks' findings; they are flags for
 * the server to act on as configured, not verdicts.
 *
 * @generated from message cupid.v1.FairPlayFlags
 */
export type FairPlayFlags = Message<"cupid.v1.FairPlayFlags"> & {
    /**
     * Lost far more games today than his league's players do.
     *
     * @generated from field: bool tanking = 1;
     */
    tanking: boolean;
    /**
     * Keeps beating what his rating predicts.
     *
     * @generated from field: bool smurf = 2;
     */
    smurf: boolean;
    /**
     * A losing streak lowers his matchmaking skill by this much for a while.
     *
     * @generated from field: double ease = 3;
     */
    ease: number;
    /**
     * Why, in words.
     *
     * @generated from field: repeated string why = 4;
     */
    why: string[];
};
/**
 * Describes the message cupid.v1.FairPlayFlags.
 * Use `create(FairPlayFlagsSchema)` to create a new message.
 */
export declare const FairPlayFlagsSchema: GenMessage<FairPlayFlags>;
/**
 * PlayerRating is a player's state under one rating.
 *
 * @generated from message cupid.v1.PlayerRating
 */
export type PlayerRating = Message<"cupid.v1.PlayerRating"> & {
    /**
     * @generated from field: string rating = 1;
     */
    rating: string;
    /**
     * The conservative value leagues and matchmaking read.
     *
     * @generated from field: double value = 2;
     */
    value: number;
    /**
     * OpenSkill's μ and σ, or Glicko-2's rating, deviation and volatility.
     *
     * @generated from field: double mu = 3;
     */
    mu: number;
    /**
     * @generated from field: double sigma = 4;
     */
    sigma: number;
    /**
     * @generated from field: double glicko_rating = 5;
     */
    glickoRating: number;
    /**
     * @generated from field: double glicko_deviation = 6;
     */
    glickoDeviation: number;
    /**
     * @generated from field: double glicko_volatility = 7;
     */
    glickoVolatility: number;
    /**
     * @generated from field: string league = 8;
     */
    league: string;
    /**
     * @generated from field: int32 division = 9;
     */
    division: number;
    /**
     * @generated from field: int32 games = 10;
     */
    games: number;
    /**
     * @generated from field: int32 wins = 11;
     */
    wins: number;
    /**
     * @generated from field: int32 losses = 12;
     */
    losses: number;
    /**
     * @generated from field: int32 draws = 13;
     */
    draws: number;
    /**
     * @generated from field: int32 leaves = 14;
     */
    leaves: number;
    /**
     * @generated from field: cupid.v1.FairPlayFlags flags = 15;
     */
    flags?: FairPlayFlags | undefined;
    /**
     * The skill his tickets carry now: value, less a losing streak's ease,
     * plus a flag's raise.
     *
     * @generated from field: double matchmaking = 16;
     */
    matchmaking: number;
};
/**
 * Describes the message cupid.v1.PlayerRating.
 * Use `create(PlayerRatingSchema)` to create a new message.
 */
export declare const PlayerRatingSchema: GenMessage<PlayerRating>;
/**
 * @generated from message cupid.v1.LowPriority
 */
export type LowPriority = Message<"cupid.v1.LowPriority"> & {
    /**
     * @generated from field: google.protobuf.Timestamp until = 1;
     */
    until?: Timestamp | undefined;
    /**
     * @generated from field: int32 games = 2;
     */
    games: number;
    /**
     * @generated from field: string reason = 3;
     */
    reason: string;
    /**
     * @generated from field: google.protobuf.Timestamp set_at = 4;
     */
    setAt?: Timestamp | undefined;
};
/**
 * Describes the message cupid.v1.LowPriority.
 * Use `create(LowPrioritySchema)` to create a new message.
 */
export declare const LowPrioritySchema: GenMessage<LowPriority>;
/**
 * @generated from message cupid.v1.GetPlayerRatingsRequest
 */
export type GetPlayerRatingsRequest = Message<"cupid.v1.GetPlayerRatingsRequest"> & {
    /**
     * @generated from field: string player_id = 1;
     */
    playerId: string;
};
/**
 * Describes the message cupid.v1.GetPlayerRatingsRequest.
 * Use `create(GetPlayerRatingsRequestSchema)` to create a new message.
 */
export declare const GetPlayerRatingsRequestSchema: GenMessage<GetPlayerRatingsRequest>;
/**
 * @generated from message cupid.v1.GetPlayerRatingsResponse
 */
export type GetPlayerRatingsResponse = Message<"cupid.v1.GetPlayerRatingsResponse"> & {
    /**
     * @generated from field: string player_id = 1;
     */
    playerId: string;
    /**
     * @generated from field: repeated cupid.v1.PlayerRating ratings = 2;
     */
    ratings: PlayerRating[];
    /**
     * Set while a low-priority mark holds.
     *
     * @generated from field: cupid.v1.LowPriority low_priority = 3;
     */
    lowPriority?: LowPriority | undefined;
};
/**
 * Describes the message cupid.v1.GetPlayerRatingsResponse.
 * Use `create(GetPlayerRatingsResponseSchema)` to create a new message.
 */
export declare const GetPlayerRatingsResponseSchema: GenMessage<GetPlayerRatingsResponse>;
/**
 * @generated from message cupid.v1.ListRatingHistoryRequest
 */
export type ListRatingHistoryRequest = Message<"cupid.v1.ListRatingHistoryRequest"> & {
    /**
     * @generated from field: string player_id = 1;
     */
    playerId: string;
    /**
     * @generated from field: string rating = 2;
     */
    rating: string;
    /**
     * Lines before this sequence number; 0 for the newest.
     *
     * @generated from field: int64 before_seq = 3;
     */
    beforeSeq: bigint;
    /**
     * At most this many; 50 when zero, 500 at most.
     *
     * @generated from field: int32 limit = 4;
     */
    limit: number;
};
/**
 * Describes the message cupid.v1.ListRatingHistoryRequest.
 * Use `create(ListRatingHistoryRequestSchema)` to create a new message.
 */
export declare const ListRatingHistoryRequestSchema: GenMessage<ListRatingHistoryRequest>;
/**
 * @generated from message cupid.v1.ListRatingHistoryResponse
 */
export type ListRatingHistoryResponse = Message<"cupid.v1.ListRatingHistoryResponse"> & {
    /**
     * @generated from field: repeated cupid.v1.RatingChange changes = 1;
     */
    changes: RatingChange[];
};
/**
 * Describes the message cupid.v1.ListRatingHistoryResponse.
 * Use `create(ListRatingHistoryResponseSchema)` to create a new message.
 */
export declare const ListRatingHistoryResponseSchema: GenMessage<ListRatingHistoryResponse>;
/**
 * @generated from message cupid.v1.SetLowPriorityRequest
 */
export type SetLowPriorityRequest = Message<"cupid.v1.SetLowPriorityRequest"> & {
    /**
     * @generated from field: string player_id = 1;
     */
    playerId: string;
    /**
     * For this long, for this many rated games, or both.
     *
     * @generated from field: google.protobuf.Duration duration = 2;
     */
    duration?: Duration | undefined;
    /**
     * @generated from field: int32 games = 3;
     */
    games: number;
    /**
     * @generated from field: string reason = 4;
     */
    reason: string;
};
/**
 * Describes the message cupid.v1.SetLowPriorityRequest.
 * Use `create(SetLowPriorityRequestSchema)` to create a new message.
 */
export declare const SetLowPriorityRequestSchema: GenMessage<SetLowPriorityRequest>;
/**
 * @generated from message cupid.v1.SetLowPriorityResponse
 */
export type SetLowPriorityResponse = Message<"cupid.v1.SetLowPriorityResponse"> & {
    /**
     * @generated from field: cupid.v1.LowPriority low_priority = 1;
     */
    lowPriority?: LowPriority | undefined;
};
/**
 * Describes the message cupid.v1.SetLowPriorityResponse.
 * Use `create(SetLowPriorityResponseSchema)` to create a new message.
 */
export declare const SetLowPriorityResponseSchema: GenMessage<SetLowPriorityResponse>;
/**
 * @generated from message cupid.v1.ClearLowPriorityRequest
 */
export type ClearLowPriorityRequest = Message<"cupid.v1.ClearLowPriorityRequest"> & {
    /**
     * @generated from field: string player_id = 1;
     */
    playerId: string;
};
/**
 * Describes the message cupid.v1.ClearLowPriorityRequest.
 * Use `create(ClearLowPriorityRequestSchema)` to create a new message.
 */
export declare const ClearLowPriorityRequestSchema: GenMessage<ClearLowPriorityRequest>;
/**
 * @generated from message cupid.v1.ClearLowPriorityResponse
 */
export type ClearLowPriorityResponse = Message<"cupid.v1.ClearLowPriorityResponse"> & {};
/**
 * Describes the message cupid.v1.ClearLowPriorityResponse.
 * Use `create(ClearLowPriorityResponseSchema)` to create a new message.
 */
export declare const ClearLowPriorityResponseSchema: GenMessage<ClearLowPriorityResponse>;
/**
 * RatingService closes the loop from match results back into
 * matchmaking: the game's backend reports each played match's result once,
 * the server rates its players under the rating of the match's queue, and
 * the queue's tickets then carry each player's skill from that rating.
 * Reporting and low-priority marks need a server key with the tickets
 * scope; a player token may read its own player's ratings and history.
 *
 * @generated from service cupid.v1.RatingService
 */
export declare const RatingService: GenService<{
    /**
     * ReportResult rates a played (assigned) match's players. A match is
     * rated once: the same report again returns the first outcome; a
     * different one is failed_precondition. An unknown match is not_found, a
     * match not played (formed, pending, released) failed_precondition, a
     * player not in the match invalid_argument naming the field.
     *
     * @generated from rpc cupid.v1.RatingService.ReportResult
     */
    reportResult: {
        methodKind: "unary";
        input: typeof ReportResultRequestSchema;
        output: typeof ReportResultResponseSchema;
    };
    /**
     * GetPlayerRatings returns a player's state under every configured
     * rating (a new player's start where he has not played), with his
     * low-priority mark.
     *
     * @generated from rpc cupid.v1.RatingService.GetPlayerRatings
     */
    getPlayerRatings: {
        methodKind: "unary";
        input: typeof GetPlayerRatingsRequestSchema;
        output: typeof GetPlayerRatingsResponseSchema;
    };
    /**
     * ListRatingHistory pages through a player's rating changes under one
     * rating, newest first.
     *
     * @generated from rpc cupid.v1.RatingService.ListRatingHistory
     */
    listRatingHistory: {
        methodKind: "unary";
        input: typeof ListRatingHistoryRequestSchema;
        output: typeof ListRatingHistoryResponseSchema;
    };
    /**
     * SetLowPriority marks a player low priority for a time, a number of
     * rated games, or both (whichever ends first), replacing an earlier
     * mark. Queues that route low priority send his tickets to a pool of
     * their own.
     *
     * @generated from rpc cupid.v1.RatingService.SetLowPriority
     */
    setLowPriority: {
        methodKind: "unary";
        input: typeof SetLowPriorityRequestSchema;
        output: typeof SetLowPriorityResponseSchema;
    };
    /**
     * ClearLowPriority takes a player's mark away.
     *
     * @generated from rpc cupid.v1.RatingService.ClearLowPriority
     */
    clearLowPriority: {
        methodKind: "unary";
        input: typeof ClearLowPriorityRequestSchema;
        output: typeof ClearLowPriorityResponseSchema;
    };
}>;
