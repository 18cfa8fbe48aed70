import type { GenFile, GenMessage, GenService } from "@bufbuild/protobuf/codegenv2";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import type { Message } from "@bufbuild/protobuf";
/**
 * Describes the file cupid/v1/rollout.proto.
 */
export declare const file_cupid_v1_rollout: GenFile;
/**
 * @generated from message cupid.v1.StartShadowRequest
 */
export type StartShadowRequest = Message<"cupid.v1.StartShadowRequest"> & {
    /**
     * @generated from field: string queue = 1;
     */
    queue: string;
    /**
     * The candidate ruleset document, JSON.
     *
     * @generated from field: string ruleset = 2;
     */
    ruleset: string;
    /**
     * The attribute whose spread the skill gap measures; mmr when empty.
     *
     * @generated from field: string skill_attribute = 3;
     */
    skillAttribute: string;
    /**
     * Why, for the ruleset history (at most 500 bytes).
     *
     * @generated from field: string reason = 4;
     */
    reason: string;
};
/**
 * Describes the message cupid.v1.StartShadowRequest.
 * Use `create(StartShadowRequestSchema)` to create a new message.
 */
export declare const StartShadowRequestSchema: GenMessage<StartShadowRequest>;
/**
 * @generated from message cupid.v1.StartShadowResponse
 */
export type StartShadowResponse = Message<"cupid.v1.StartShadowResponse"> & {
    /**
     * @generated from field: cupid.v1.ShadowReport report = 1;
     */
    report?: ShadowReport | undefined;
};
/**
 * Describes the message cupid.v1.StartShadowResponse.
 * Use `create(StartShadowResponseSchema)` to create a new message.
 */
export declare const StartShadowResponseSchema: GenMessage<StartShadowResponse>;
/**
 * @generated from message cupid.v1.StopShadowRequest
 */
export type StopShadowRequest = Message<"cupid.v1.StopShadowRequest"> & {
    /**
     * @generated from field: string queue = 1;
     */
    queue: string;
    /**
     * @generated from field: string reason = 2;
     */
    reason: string;
};
/**
 * Describes the message cupid.v1.StopShadowRequest.
 * Use `create(StopShadowRequestSchema)` to create a new message.
 */
export declare const StopShadowRequestSchema: GenMessage<StopShadowRequest>;
/**
 * @generated from message cupid.v1.StopShadowResponse
 */
export type StopShadowResponse = Message<"cupid.v1.StopShadowResponse"> & {};
/**
 * Describes the message cupid.v1.StopShadowResponse.
 * Use `create(StopShadowResponseSchema)` to create a new message.
 */
export declare const StopShadowResponseSchema: GenMessage<StopShadowResponse>;
/**
 * @generated from message cupid.v1.ShadowReportRequest
 */
export type ShadowReportRequest = Message<"cupid.v1.ShadowReportRequest"> & {
    /**
     * @generated from field: string queue = 1;
     */
    queue: string;
};
/**
 * Describes the message cupid.v1.ShadowReportRequest.
 * Use `create(ShadowReportRequestSchema)` to create a new message.
 */
export declare const ShadowReportRequestSchema: GenMessage<ShadowReportRequest>;
/**
 * @generated from message cupid.v1.ShadowReportResponse
 */
export type ShadowReportResponse = Message<"cupid.v1.ShadowReportResponse"> & {
    /**
     * @generated from field: cupid.v1.ShadowReport report = 1;
     */
    report?: ShadowReport | undefined;
};
/**
 * Describes the message cupid.v1.ShadowReportResponse.
 * Use `create(ShadowReportResponseSchema)` to create a new message.
 */
export declare const ShadowReportResponseSchema: GenMessage<ShadowReportResponse>;
/**
 * ShadowReport is a shadow's figures beside the live ones since it started
 * (at most the last hour).
 *
 * @generated from message cupid.v1.ShadowReport
 */
export type ShadowReport = Message<"cupid.v1.ShadowReport"> & {
    /**
     * @generated from field: string queue = 1;
     */
    queue: string;
    /**
     * @generated from field: string ruleset = 2;
     */
    ruleset: string;
    /**
     * @generated from field: google.protobuf.Timestamp started = 3;
     */
    started?: Timestamp | undefined;
    /**
     * @generated from field: double window_seconds = 4;
     */
    windowSeconds: number;
    /**
     * @generated from field: repeated cupid.v1.ShadowKey keys = 5;
     */
    keys: ShadowKey[];
};
/**
 * Describes the message cupid.v1.ShadowReport.
 * Use `create(ShadowReportSchema)` to create a new message.
 */
export declare const ShadowReportSchema: GenMessage<ShadowReport>;
/**
 * ShadowKey is one queue key's figures on both sides.
 *
 * @generated from message cupid.v1.ShadowKey
 */
export type ShadowKey = Message<"cupid.v1.ShadowKey"> & {
    /**
     * @generated from field: string key = 1;
     */
    key: string;
    /**
     * @generated from field: cupid.v1.SideFigures live = 2;
     */
    live?: SideFigures | undefined;
    /**
     * @generated from field: cupid.v1.SideFigures shadow = 3;
     */
    shadow?: SideFigures | undefined;
};
/**
 * Describes the message cupid.v1.ShadowKey.
 * Use `create(ShadowKeySchema)` to create a new message.
 */
export declare const ShadowKeySchema: GenMessage<ShadowKey>;
/**
 * SideFigures are one side's matches and tickets.
 *
 * @generated from message cupid.v1.SideFigures
 */
export type SideFigures = Message<"cupid.v1.SideFigures"> & {
    /**
     * @generated from field: int32 matches = 1;
     */
    matches: number;
    /**
     * Waits of matched tickets, in seconds.
     *
     * @generated from field: int32 wait_samples = 2;
     */
    waitSamples: number;
    /**
     * @generated from field: double wait_p50_seconds = 3;
     */
    waitP50Seconds: number;
    /**
     * @generated from field: double wait_p90_seconds = 4;
     */
    waitP90Seconds: number;
    /**
     * @generated from field: double wait_p99_seconds = 5;
     */
    waitP99Seconds: number;
    /**
     * @generated from field: double mean_quality = 6;
     */
    meanQuality: number;
    /**
     * Each quality criterion's mean score.
     *
     * @generated from field: map<string, double> quality_parts = 7;
     */
    qualityParts: {
        [key: string]: number;
    };
    /**
     * @generated from field: cupid.v1.Spread skill_gap = 8;
     */
    skillGap?: Spread | undefined;
    /**
     * @generated from field: cupid.v1.Spread ping_ms = 9;
     */
    pingMs?: Spread | undefined;
    /**
     * Tickets whose time to live ran out while they waited on this side.
     *
     * @generated from field: int32 expired = 10;
     */
    expired: number;
    /**
     * Shadow only: tickets that left the live pool (matched by the live
     * ruleset, cancelled) while the shadow held them, and tickets the
     * candidate would not take.
     *
     * @generated from field: int32 taken_by_live = 11;
     */
    takenByLive: number;
    /**
     * @generated from field: int32 refused = 12;
     */
    refused: number;
};
/**
 * Describes the message cupid.v1.SideFigures.
 * Use `create(SideFiguresSchema)` to create a new message.
 */
export declare const SideFiguresSchema: GenMessage<SideFigures>;
/**
 * Spread describes a per-match measure.
 *
 * @generated from message cupid.v1.Spread
 */
export type Spread = Message<"cupid.v1.Spread"> & {
    /**
     * @generated from field: int32 count = 1;
     */
    count: number;
    /**
     * @generated from field: double mean = 2;
     */
    mean: number;
    /**
     * @generated from field: double p50 = 3;
     */
    p50: number;
    /**
     * @generated from field: double p90 = 4;
     */
    p90: number;
    /**
     * @generated from field: double p99 = 5;
     */
    p99: number;
};
/**
 * Describes the message cupid.v1.Spread.
 * Use `create(SpreadSchema)` to create a new message.
 */
export declare const SpreadSchema: GenMessage<Spread>;
/**
 * @generated from message cupid.v1.StartCanaryRequest
 */
export type StartCanaryRequest = Message<"cupid.v1.StartCanaryRequest"> & {
    /**
     * @generated from field: string queue = 1;
     */
    queue: string;
    /**
     * @generated from field: string ruleset = 2;
     */
    ruleset: string;
    /**
     * The share of new tickets sent to the candidate: more than 0, at most
     * 0.5.
     *
     * @generated from field: double share = 3;
     */
    share: number;
    /**
     * Unset: the default guard (25 % on wait p90, 0.05 on mean quality,
     * over 10 minutes, 50 matched tickets a side).
     *
     * @generated from field: cupid.v1.CanaryGuard guard = 4;
     */
    guard?: CanaryGuard | undefined;
    /**
     * @generated from field: string reason = 5;
     */
    reason: string;
};
/**
 * Describes the message cupid.v1.StartCanaryRequest.
 * Use `create(StartCanaryRequestSchema)` to create a new message.
 */
export declare const StartCanaryRequestSchema: GenMessage<StartCanaryRequest>;
/**
 * CanaryGuard rolls a canary back when its wait p90 is longer than the live
 * side's by more than wait_margin (a fraction) or its mean quality lower by
 * more than quality_margin, over the last window_seconds, once both sides
 * have min_samples matched tickets. A margin of 0 turns that guard off.
 *
 * @generated from message cupid.v1.CanaryGuard
 */
export type CanaryGuard = Message<"cupid.v1.CanaryGuard"> & {
    /**
     * @generated from field: double wait_margin = 1;
     */
    waitMargin: number;
    /**
     * @generated from field: double quality_margin = 2;
     */
    qualityMargin: number;
    /**
     * @generated from field: double window_seconds = 3;
     */
    windowSeconds: number;
    /**
     * @generated from field: int32 min_samples = 4;
     */
    minSamples: number;
};
/**
 * Describes the message cupid.v1.CanaryGuard.
 * Use `create(CanaryGuardSchema)` to create a new message.
 */
export declare const CanaryGuardSchema: GenMessage<CanaryGuard>;
/**
 * @generated from message cupid.v1.StartCanaryResponse
 */
export type StartCanaryResponse = Message<"cupid.v1.StartCanaryResponse"> & {
    /**
     * @generated from field: cupid.v1.CanaryStatus status = 1;
     */
    status?: CanaryStatus | undefined;
};
/**
 * Describes the message cupid.v1.StartCanaryResponse.
 * Use `create(StartCanaryResponseSchema)` to create a new message.
 */
export declare const StartCanaryResponseSchema: GenMessage<StartCanaryResponse>;
/**
 * @generated from message cupid.v1.CanaryStatusRequest
 */
export type CanaryStatusRequest = Message<"cupid.v1.CanaryStatusRequest"> & {
    /**
     * @generated from field: string queue = 1;
     */
    queue: string;
};
/**
 * Describes the message cupid.v1.CanaryStatusRequest.
 * Use `create(CanaryStatusRequestSchema)` to create a new message.
 */
export declare const CanaryStatusRequestSchema: GenMessage<CanaryStatusRequest>;
/**
 * @generated from message cupid.v1.CanaryStatusResponse
 */
export type CanaryStatusResponse = Message<"cupid.v1.CanaryStatusResponse"> & {
    /**
     * @generated from field: cupid.v1.CanaryStatus status = 1;
     */
    status?: CanaryStatus | undefined;
};
/**
 * Describes the message cupid.v1.CanaryStatusResponse.
 * Use `create(CanaryStatusResponseSchema)` to create a new message.
 */
export declare const CanaryStatusResponseSchema: GenMessage<CanaryStatusResponse>;
/**
 * @generated from message cupid.v1.PromoteCanaryRequest
 */
export type PromoteCanaryRequest = Message<"cupid.v1.PromoteCanaryRequest"> & {
    /**
     * @generated from field: string queue = 1;
     */
    queue: string;
    /**
     * @generated from field: string reason = 2;
     */
    reason: string;
};
/**
 * Describes the message cupid.v1.PromoteCanaryRequest.
 * Use `create(PromoteCanaryRequestSchema)` to create a new message.
 */
export declare const PromoteCanaryRequestSchema: GenMessage<PromoteCanaryRequest>;
/**
 * @generated from message cupid.v1.PromoteCanaryResponse
 */
export type PromoteCanaryResponse = Message<"cupid.v1.PromoteCanaryResponse"> & {
    /**
     * @generated from field: cupid.v1.CanaryStatus status = 1;
     */
    status?: CanaryStatus | undefined;
};
/**
 * Describes the message cupid.v1.PromoteCanaryResponse.
 * Use `create(PromoteCanaryResponseSchema)` to create a new message.
 */
export declare const PromoteCanaryResponseSchema: GenMessage<PromoteCanaryResponse>;
/**
 * @generated from message cupid.v1.RollbackCanaryRequest
 */
export type RollbackCanaryRequest = Message<"cupid.v1.RollbackCanaryRequest"> & {
    /**
     * @generated from field: string queue = 1;
     */
    queue: string;
    /**
     * @generated from field: string reason = 2;
     */
    reason: string;
};
/**
 * Describes the message cupid.v1.RollbackCanaryRequest.
 * Use `create(RollbackCanaryRequestSchema)` to create a new message.
 */
export declare const RollbackCanaryRequestSchema: GenMessage<RollbackCanaryRequest>;
/**
 * @generated from message cupid.v1.RollbackCanaryResponse
 */
export type RollbackCanaryResponse = Message<"cupid.v1.RollbackCanaryResponse"> & {
    /**
     * @generated from field: cupid.v1.CanaryStatus status = 1;
     */
    status?: CanaryStatus | undefined;
};
/**
 * Describes the message cupid.v1.RollbackCanaryResponse.
 * Use `create(RollbackCanaryResponseSchema)` to create a new message.
 */
export declare const RollbackCanaryResponseSchema: GenMessage<RollbackCanaryResponse>;
/**
 * CanaryStatus is a canary and both sides' figures over its guard's window.
 *
 * @generated from message cupid.v1.CanaryStatus
 */
export type CanaryStatus = Message<"cupid.v1.CanaryStatus"> & {
    /**
     * @generated from field: string queue = 1;
     */
    queue: string;
    /**
     * @generated from field: string ruleset = 2;
     */
    ruleset: string;
    /**
     * @generated from field: double share = 3;
     */
    share: number;
    /**
     * @generated from field: cupid.v1.CanaryGuard guard = 4;
     */
    guard?: CanaryGuard | undefined;
    /**
     * @generated from field: google.protobuf.Timestamp started = 5;
     */
    started?: Timestamp | undefined;
    /**
     * running, rolled_back or promoted.
     *
     * @generated from field: string state = 6;
     */
    state: string;
    /**
     * The decision's why; while running, the guard's last word.
     *
     * @generated from field: string reason = 7;
     */
    reason: string;
    /**
     * @generated from field: google.protobuf.Timestamp decided = 8;
     */
    decided?: Timestamp | undefined;
    /**
     * @generated from field: cupid.v1.CanaryFigures live = 9;
     */
    live?: CanaryFigures | undefined;
    /**
     * @generated from field: cupid.v1.CanaryFigures canary = 10;
     */
    canary?: CanaryFigures | undefined;
};
/**
 * Describes the message cupid.v1.CanaryStatus.
 * Use `create(CanaryStatusSchema)` to create a new message.
 */
export declare const CanaryStatusSchema: GenMessage<CanaryStatus>;
/**
 * CanaryFigures are one side's matches over the guard's window.
 *
 * @generated from message cupid.v1.CanaryFigures
 */
export type CanaryFigures = Message<"cupid.v1.CanaryFigures"> & {
    /**
     * @generated from field: int32 samples = 1;
     */
    samples: number;
    /**
     * @generated from field: int32 matches = 2;
     */
    matches: number;
    /**
     * @generated from field: double wait_p50_seconds = 3;
     */
    waitP50Seconds: number;
    /**
     * @generated from field: double wait_p90_seconds = 4;
     */
    waitP90Seconds: number;
    /**
     * @generated from field: double wait_p99_seconds = 5;
     */
    waitP99Seconds: number;
    /**
     * @generated from field: double mean_quality = 6;
     */
    meanQuality: number;
};
/**
 * Describes the message cupid.v1.CanaryFigures.
 * Use `create(CanaryFiguresSchema)` to create a new message.
 */
export declare const CanaryFiguresSchema: GenMessage<CanaryFigures>;
/**
 * RolloutService tries a candidate ruleset on live traffic (docs/rollouts.md).
 * A shadow runs it beside the live ruleset on the same arrivals and commits
 * nothing; a canary sends a share of new tickets to it for real, rolls back
 * by itself when a guard trips, and is promoted on request. Every decision
 * is noted in the queue's ruleset history. Admin keys only.
 *
 * @generated from service cupid.v1.RolloutService
 */
export declare const RolloutService: GenService<{
    /**
     * StartShadow starts a queue's shadow (one at a time per queue).
     *
     * @generated from rpc cupid.v1.RolloutService.StartShadow
     */
    startShadow: {
        methodKind: "unary";
        input: typeof StartShadowRequestSchema;
        output: typeof StartShadowResponseSchema;
    };
    /**
     * StopShadow ends a queue's shadow; its figures go with it.
     *
     * @generated from rpc cupid.v1.RolloutService.StopShadow
     */
    stopShadow: {
        methodKind: "unary";
        input: typeof StopShadowRequestSchema;
        output: typeof StopShadowResponseSchema;
    };
    /**
     * ShadowReport gives the shadow's figures beside the live ones, per
     * queue key.
     *
     * @generated from rpc cupid.v1.RolloutService.ShadowReport
     */
    shadowReport: {
        methodKind: "unary";
        input: typeof ShadowReportRequestSchema;
        output: typeof ShadowReportResponseSchema;
    };
    /**
     * StartCanary sends a share of a queue's new tickets to a candidate.
     *
     * @generated from rpc cupid.v1.RolloutService.StartCanary
     */
    startCanary: {
        methodKind: "unary";
        input: typeof StartCanaryRequestSchema;
        output: typeof StartCanaryResponseSchema;
    };
    /**
     * CanaryStatus gives a queue's canary, running or decided, with both
     * sides' figures over its guard's window.
     *
     * @generated from rpc cupid.v1.RolloutService.CanaryStatus
     */
    canaryStatus: {
        methodKind: "unary";
        input: typeof CanaryStatusRequestSchema;
        output: typeof CanaryStatusResponseSchema;
    };
    /**
     * PromoteCanary makes the candidate the queue's ruleset.
     *
     * @generated from rpc cupid.v1.RolloutService.PromoteCanary
     */
    promoteCanary: {
        methodKind: "unary";
        input: typeof PromoteCanaryRequestSchema;
        output: typeof PromoteCanaryResponseSchema;
    };
    /**
     * RollbackCanary ends a running canary: new tickets all go live.
     *
     * @generated from rpc cupid.v1.RolloutService.RollbackCanary
     */
    rollbackCanary: {
        methodKind: "unary";
        input: typeof RollbackCanaryRequestSchema;
        output: typeof RollbackCanaryResponseSchema;
    };
}>;
