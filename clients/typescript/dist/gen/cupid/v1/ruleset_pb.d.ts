import type { GenFile, GenMessage, GenService } from "@bufbuild/protobuf/codegenv2";
import type { Message } from "@bufbuild/protobuf";
/**
 * Describes the file cupid/v1/ruleset.proto.
 */
export declare const file_cupid_v1_ruleset: GenFile;
/**
 * @generated from message cupid.v1.ValidateRulesetRequest
 */
export type ValidateRulesetRequest = Message<"cupid.v1.ValidateRulesetRequest"> & {
    /**
     * The ruleset document, JSON.
     *
     * @generated from field: string ruleset = 1;
     */
    ruleset: string;
};
/**
 * Describes the message cupid.v1.ValidateRulesetRequest.
 * Use `create(ValidateRulesetRequestSchema)` to create a new message.
 */
export declare const ValidateRulesetRequestSchema: GenMessage<ValidateRulesetRequest>;
/**
 * @generated from message cupid.v1.ValidateRulesetResponse
 */
export type ValidateRulesetResponse = Message<"cupid.v1.ValidateRulesetResponse"> & {
    /**
     * @generated from field: bool valid = 1;
     */
    valid: boolean;
    /**
     * @generated from field: repeated cupid.v1.RulesetProblem problems = 2;
     */
    problems: RulesetProblem[];
};
/**
 * Describes the message cupid.v1.ValidateRulesetResponse.
 * Use `create(ValidateRulesetResponseSchema)` to create a new message.
 */
export declare const ValidateRulesetResponseSchema: GenMessage<ValidateRulesetResponse>;
/**
 * RulesetProblem is one thing wrong in a ruleset.
 *
 * @generated from message cupid.v1.RulesetProblem
 */
export type RulesetProblem = Message<"cupid.v1.RulesetProblem"> & {
    /**
     * @generated from field: string path = 1;
     */
    path: string;
    /**
     * @generated from field: int32 line = 2;
     */
    line: number;
    /**
     * @generated from field: int32 column = 3;
     */
    column: number;
    /**
     * @generated from field: string message = 4;
     */
    message: string;
};
/**
 * Describes the message cupid.v1.RulesetProblem.
 * Use `create(RulesetProblemSchema)` to create a new message.
 */
export declare const RulesetProblemSchema: GenMessage<RulesetProblem>;
/**
 * @generated from message cupid.v1.GetRulesetRequest
 */
export type GetRulesetRequest = Message<"cupid.v1.GetRulesetRequest"> & {
    /**
     * @generated from field: string queue = 1;
     */
    queue: string;
};
/**
 * Describes the message cupid.v1.GetRulesetRequest.
 * Use `create(GetRulesetRequestSchema)` to create a new message.
 */
export declare const GetRulesetRequestSchema: GenMessage<GetRulesetRequest>;
/**
 * @generated from message cupid.v1.GetRulesetResponse
 */
export type GetRulesetResponse = Message<"cupid.v1.GetRulesetResponse"> & {
    /**
     * @generated from field: string queue = 1;
     */
    queue: string;
    /**
     * @generated from field: string ruleset = 2;
     */
    ruleset: string;
    /**
     * @generated from field: int32 version = 3;
     */
    version: number;
};
/**
 * Describes the message cupid.v1.GetRulesetResponse.
 * Use `create(GetRulesetResponseSchema)` to create a new message.
 */
export declare const GetRulesetResponseSchema: GenMessage<GetRulesetResponse>;
/**
 * @generated from message cupid.v1.PutRulesetRequest
 */
export type PutRulesetRequest = Message<"cupid.v1.PutRulesetRequest"> & {
    /**
     * @generated from field: string queue = 1;
     */
    queue: string;
    /**
     * @generated from field: string ruleset = 2;
     */
    ruleset: string;
    /**
     * When set, the put succeeds only if the current version is this one
     * (optimistic concurrency for editors).
     *
     * @generated from field: int32 expected_version = 3;
     */
    expectedVersion: number;
};
/**
 * Describes the message cupid.v1.PutRulesetRequest.
 * Use `create(PutRulesetRequestSchema)` to create a new message.
 */
export declare const PutRulesetRequestSchema: GenMessage<PutRulesetRequest>;
/**
 * @generated from message cupid.v1.PutRulesetResponse
 */
export type PutRulesetResponse = Message<"cupid.v1.PutRulesetResponse"> & {
    /**
     * @generated from field: int32 version = 1;
     */
    version: number;
};
/**
 * Describes the message cupid.v1.PutRulesetResponse.
 * Use `create(PutRulesetResponseSchema)` to create a new message.
 */
export declare const PutRulesetResponseSchema: GenMessage<PutRulesetResponse>;
/**
 * @generated from message cupid.v1.ImportRulesetRequest
 */
export type ImportRulesetRequest = Message<"cupid.v1.ImportRulesetRequest"> & {
    /**
     * The source product: "flexmatch", "nakama" or "openmatch".
     *
     * @generated from field: string from = 1;
     */
    from: string;
    /**
     * The source document as its file holds it (at most 1 MiB).
     *
     * @generated from field: string source = 2;
     */
    source: string;
};
/**
 * Describes the message cupid.v1.ImportRulesetRequest.
 * Use `create(ImportRulesetRequestSchema)` to create a new message.
 */
export declare const ImportRulesetRequestSchema: GenMessage<ImportRulesetRequest>;
/**
 * @generated from message cupid.v1.ImportRulesetResponse
 */
export type ImportRulesetResponse = Message<"cupid.v1.ImportRulesetResponse"> & {
    /**
     * "exact", "approximate" or "refused": the exit status of
     * `cupid ruleset import` (0, 1, 2) in words.
     *
     * @generated from field: string outcome = 1;
     */
    outcome: string;
    /**
     * The Cupid ruleset, JSON; empty when refused, and for an Open Match
     * profile of several pools (see queues).
     *
     * @generated from field: string ruleset = 2;
     */
    ruleset: string;
    /**
     * For Open Match: a configuration's queues section, YAML, one queue per
     * pool.
     *
     * @generated from field: string queues = 3;
     */
    queues: string;
    /**
     * The report, one entry per part of the source, in source order.
     *
     * @generated from field: repeated cupid.v1.ImportEntry entries = 4;
     */
    entries: ImportEntry[];
    /**
     * Why nothing could be written, when refused.
     *
     * @generated from field: string refused = 5;
     */
    refused: string;
    /**
     * The report as `cupid ruleset import` prints it.
     *
     * @generated from field: string report = 6;
     */
    report: string;
};
/**
 * Describes the message cupid.v1.ImportRulesetResponse.
 * Use `create(ImportRulesetResponseSchema)` to create a new message.
 */
export declare const ImportRulesetResponseSchema: GenMessage<ImportRulesetResponse>;
/**
 * ImportEntry is one line of an import report.
 *
 * @generated from message cupid.v1.ImportEntry
 */
export type ImportEntry = Message<"cupid.v1.ImportEntry"> & {
    /**
     * The line of the source the part starts on; 0 for the whole source.
     *
     * @generated from field: int32 line = 1;
     */
    line: number;
    /**
     * The part: "rules[FairTeamSkill] (distance)".
     *
     * @generated from field: string source = 2;
     */
    source: string;
    /**
     * What it became ("team_rule[0]"); empty when dropped.
     *
     * @generated from field: string became = 3;
     */
    became: string;
    /**
     * "exact", "approximate" or "dropped".
     *
     * @generated from field: string status = 4;
     */
    status: string;
    /**
     * How an approximation differs, or why a part was dropped.
     *
     * @generated from field: string why = 5;
     */
    why: string;
};
/**
 * Describes the message cupid.v1.ImportEntry.
 * Use `create(ImportEntrySchema)` to create a new message.
 */
export declare const ImportEntrySchema: GenMessage<ImportEntry>;
/**
 * RulesetService validates rulesets and replaces a queue's ruleset while the
 * server runs. Waiting tickets keep waiting across a replacement.
 *
 * @generated from service cupid.v1.RulesetService
 */
export declare const RulesetService: GenService<{
    /**
     * ValidateRuleset reports every problem of a ruleset document, each with
     * its JSON path (and line and column) and the reason.
     *
     * @generated from rpc cupid.v1.RulesetService.ValidateRuleset
     */
    validateRuleset: {
        methodKind: "unary";
        input: typeof ValidateRulesetRequestSchema;
        output: typeof ValidateRulesetResponseSchema;
    };
    /**
     * GetRuleset returns a queue's current ruleset and its version.
     *
     * @generated from rpc cupid.v1.RulesetService.GetRuleset
     */
    getRuleset: {
        methodKind: "unary";
        input: typeof GetRulesetRequestSchema;
        output: typeof GetRulesetResponseSchema;
    };
    /**
     * PutRuleset replaces a queue's ruleset; it is refused with every
     * problem when invalid, and changes nothing then.
     *
     * @generated from rpc cupid.v1.RulesetService.PutRuleset
     */
    putRuleset: {
        methodKind: "unary";
        input: typeof PutRulesetRequestSchema;
        output: typeof PutRulesetResponseSchema;
    };
    /**
     * ImportRuleset converts another matchmaker's configuration — a FlexMatch
     * rule set, a Nakama matchmaker request, an Open Match profile — into a
     * Cupid ruleset (or queues), with a report of what became what. It
     * changes nothing on the server (docs/importing.md).
     *
     * @generated from rpc cupid.v1.RulesetService.ImportRuleset
     */
    importRuleset: {
        methodKind: "unary";
        input: typeof ImportRulesetRequestSchema;
        output: typeof ImportRulesetResponseSchema;
    };
}>;
