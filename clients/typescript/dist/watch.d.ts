import { CupidError } from "./errors.js";
/** How a watch waits between reconnections: firstMs, doubling up to maxMs. */
export interface Backoff {
    firstMs: number;
    maxMs: number;
    /**
     * How many reconnections in a row may fail before any event arrives
     * before the watch gives up with the last error; 0 never gives up.
     */
    attempts: number;
}
/** The default: 100 ms, doubling up to 5 s, never giving up. */
export declare const defaultBackoff: Readonly<Backoff>;
/** One connection's events after afterSeq; it ends when the server ends the watch. */
export type Source<E> = (afterSeq: number, signal: AbortSignal) => AsyncIterable<E>;
/** What a watch tells its onReconnect hook before it reconnects. */
export interface Reconnect {
    /** The error that ended the connection. */
    error: CupidError;
    /** The sequence number the next connection resumes after. */
    afterSeq: number;
    /** How long it waits first, in milliseconds. */
    waitMs: number;
}
export interface ResumeOptions {
    backoff: Backoff;
    signal?: AbortSignal;
    /** Whether a clean end is the end of the watch (a ticket's) or a server going away (a queue's match log). */
    endsCleanly: boolean;
    onReconnect?: (r: Reconnect) => void;
}
/**
 * resume yields the events of source after afterSeq, reconnecting after any
 * retryable failure, skipping any event at or below the last it delivered
 * (a server may replay a ticket's final event whatever after_seq says).
 * It throws a refusal (not_found, permission_denied …) at once, and the
 * last error once backoff.attempts reconnections in a row failed.
 */
export declare function resume<E extends {
    seq: number;
}>(source: Source<E>, afterSeq: number, opts: ResumeOptions): AsyncGenerator<E, void, undefined>;
/** sleep waits ms, or rejects with the signal's reason when it aborts first. */
export declare function sleep(ms: number, signal?: AbortSignal): Promise<void>;
/** SocketClosed is a WebSocket that ended other than with the server's normal close. */
export declare class SocketClosed extends Error {
    readonly opened: boolean;
    readonly code: number;
    readonly reason: string;
    constructor(opened: boolean, code: number, reason: string);
}
/**
 * socketMessages yields the text messages of a WebSocket at url until the
 * server closes it normally (1000, after a ticket's final event); any
 * other end throws SocketClosed. Aborting signal closes the socket.
 */
export declare function socketMessages(url: string, signal: AbortSignal): AsyncGenerator<string, void, undefined>;
