import { ConnectError } from "@connectrpc/connect";
// Connect's numeric codes, in order from 1 (canceled).
const codeNames = [
    "canceled",
    "unknown",
    "invalid_argument",
    "deadline_exceeded",
    "not_found",
    "already_exists",
    "permission_denied",
    "resource_exhausted",
    "failed_precondition",
    "aborted",
    "out_of_range",
    "unimplemented",
    "internal",
    "unavailable",
    "data_loss",
    "unauthenticated",
];
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
export class CupidError extends Error {
    name = "CupidError";
    /** The error code (invalid_argument, already_exists, not_found …). */
    code;
    /** The request field the error concerns, when the server names one. */
    field;
    /** How long the server asks to wait before calling again (a rate limit), in milliseconds. */
    retryAfterMs;
    constructor(code, message, opts = {}) {
        super(message, { cause: opts.cause });
        this.code = code;
        if (opts.field)
            this.field = opts.field;
        if (opts.retryAfterMs !== undefined)
            this.retryAfterMs = opts.retryAfterMs;
    }
}
/**
 * TicketEndedError is what waitForMatch rejects with when the ticket ends
 * without the match it waited for: cancelled (by its owner, replaced, matched
 * in another queue, a declined ready check …) or expired. `reason` is the
 * server's words, empty when the owner cancelled it.
 */
export class TicketEndedError extends Error {
    name = "TicketEndedError";
    ticketId;
    kind;
    reason;
    constructor(ticketId, kind, reason) {
        super(`ticket ${ticketId} was ${kind}${reason ? `: ${reason}` : ""}`);
        this.ticketId = ticketId;
        this.kind = kind;
        this.reason = reason;
    }
}
/** codeFromName reads a code name as the bulk results and JSON errors spell it. */
export function codeFromName(name) {
    return codeNames.includes(name) ? name : "unknown";
}
/**
 * toCupidError turns whatever a call threw into a CupidError: a Connect
 * error keeps its code, message, field and Retry-After; anything else (a
 * fetch that could not reach the server) is unavailable.
 */
export function toCupidError(err) {
    if (err instanceof CupidError)
        return err;
    if (err instanceof ConnectError) {
        const code = codeNames[err.code - 1] ?? "unknown";
        const field = err.metadata.get("Cupid-Field") ?? undefined;
        const after = Number(err.metadata.get("Retry-After") ?? NaN);
        return new CupidError(code, err.rawMessage, {
            field,
            retryAfterMs: Number.isFinite(after) ? after * 1000 : undefined,
            cause: err,
        });
    }
    const message = err instanceof Error ? err.message : String(err);
    return new CupidError("unavailable", message, { cause: err });
}
/**
 * retryable says whether a watch that failed with err should reconnect: the
 * connection's or the server's momentary state, not a refusal (an unknown
 * ticket, a caller without permission).
 */
export function retryable(err) {
    switch (err.code) {
        case "unavailable":
        case "unknown":
        case "internal":
        case "aborted":
        case "deadline_exceeded":
        case "resource_exhausted":
        case "canceled":
            return true;
    }
    return false;
}
