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
}>;
