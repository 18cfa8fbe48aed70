/**
 * The server's error codes, named as the Connect protocol names them (and as
 * the bulk calls' results spell them in errorCode).
 */
export type ErrorCode = "canceled" | "unknown" | "invalid_argument" | "deadline_exceeded" | "not_found" | "already_exists" | "permission_denied" | "resource_exhausted" | "failed_precondition" | "aborted" | "out_of_range" | "unimplemented" | "internal" | "unavailable" | "data_loss" | "unauthenticated";
/**
 * CupidError is every error the client reports: one the server refused a
 * call with, one of a bulk call's results, or a request the client refused
 * before sending it (an attribute that is not a finite number, say).
 *
 * `field` is the request field at fault as the server names it
 * ("players[0].attributes.mmr", "tickets[3].players[0].id", "ids[1]"): the
 * server sends it in the Cupid-Field header (api/errors.go), so a form can
 * mark the right input without parsing the message.
 */
export declare class CupidError extends Error {
    readonly name = "CupidError";
    /** The error code (invalid_argument, already_exists, not_found …). */
    readonly code: ErrorCode;
    /** The request field the error concerns, when the server names one. */
    readonly field?: string;
    /** How long the server asks to wait before calling again (a rate limit), in milliseconds. */
    readonly retryAfterMs?: number;
    constructor(code: ErrorCode, message: string, opts?: {
        field?: string;
        retryAfterMs?: number;
        cause?: unknown;
    });
}
/**
 * TicketEndedError is what waitForMatch rejects with when the ticket ends
 * without the match it waited for: cancelled (by its owner, replaced, matched
 * in another queue, a declined ready check …) or expired. `reason` is the
 * server's words, empty when the owner cancelled it.
 */
export declare class TicketEndedError extends Error {
    readonly name = "TicketEndedError";
    readonly ticketId: string;
    readonly kind: string;
    readonly reason: string;
    constructor(ticketId: string, kind: string, reason: string);
}
/** codeFromName reads a code name as the bulk results and JSON errors spell it. */
export declare function codeFromName(name: string): ErrorCode;
/**
 * toCupidError turns whatever a call threw into a CupidError: a Connect
 * error keeps its code, message, field and Retry-After; anything else (a
 * fetch that could not reach the server) is unavailable.
 */
export declare function toCupidError(err: unknown): CupidError;
/**
 * retryable says whether a watch that failed with err should reconnect: the
 * connection's or the server's momentary state, not a refusal (an unknown
 * ticket, a caller without permission).
 */
export declare function retryable(err: CupidError): boolean;
