// Watches that survive dropped connections: each source is one connection
// (a Connect server stream or a WebSocket) that yields events in order;
// resume runs one after another, starting each after the last event it
// delivered, so every event reaches the caller once.

import { CupidError, retryable, toCupidError } from "./errors.js";

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
export const defaultBackoff: Readonly<Backoff> = Object.freeze({ firstMs: 100, maxMs: 5000, attempts: 0 });

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
export async function* resume<E extends { seq: number }>(
  source: Source<E>,
  afterSeq: number,
  opts: ResumeOptions,
): AsyncGenerator<E, void, undefined> {
  const { backoff, signal } = opts;
  let wait = backoff.firstMs;
  let failures = 0;
  for (;;) {
    signal?.throwIfAborted();
    const conn = new AbortController();
    const stop = () => conn.abort(signal?.reason);
    signal?.addEventListener("abort", stop);
    let progressed = false;
    let error: CupidError;
    try {
      for await (const ev of source(afterSeq, conn.signal)) {
        if (ev.seq <= afterSeq) continue;
        afterSeq = ev.seq;
        progressed = true;
        yield ev;
      }
      if (opts.endsCleanly) return;
      error = new CupidError("unavailable", "the server ended the stream");
    } catch (e) {
      if (signal?.aborted) throw signal.reason;
      error = toCupidError(e);
      if (!retryable(error)) throw error;
    } finally {
      signal?.removeEventListener("abort", stop);
      conn.abort();
    }
    if (progressed) {
      wait = backoff.firstMs;
      failures = 0;
    }
    failures++;
    if (backoff.attempts > 0 && failures > backoff.attempts) {
      throw new CupidError(error.code, `gave up after ${backoff.attempts} reconnections: ${error.message}`, {
        field: error.field,
        cause: error,
      });
    }
    const waitMs = Math.max(wait, error.retryAfterMs ?? 0);
    opts.onReconnect?.({ error, afterSeq, waitMs });
    await sleep(waitMs, signal);
    wait = Math.min(2 * wait, backoff.maxMs);
  }
}

/** sleep waits ms, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = () => {
      signal?.removeEventListener("abort", abort);
      resolve();
    };
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", abort, { once: true });
  });
}

/** SocketClosed is a WebSocket that ended other than with the server's normal close. */
export class SocketClosed extends Error {
  constructor(
    readonly opened: boolean,
    readonly code: number,
    readonly reason: string,
  ) {
    super(opened ? `the WebSocket closed with ${code}${reason ? ` (${reason})` : ""}` : "the WebSocket could not be opened");
  }
}

/**
 * socketMessages yields the text messages of a WebSocket at url until the
 * server closes it normally (1000, after a ticket's final event); any
 * other end throws SocketClosed. Aborting signal closes the socket.
 */
export async function* socketMessages(url: string, signal: AbortSignal): AsyncGenerator<string, void, undefined> {
  const ws = new WebSocket(url);
  const queue: string[] = [];
  let opened = false;
  let closed: { code: number; reason: string } | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  ws.onopen = () => {
    opened = true;
  };
  ws.onmessage = (m) => {
    queue.push(typeof m.data === "string" ? m.data : String(m.data));
    notify();
  };
  ws.onclose = (c) => {
    closed ??= { code: c.code, reason: c.reason };
    notify();
  };
  // Browsers follow an error with a close; Node 20's WebSocket may not,
  // after a refused handshake.
  ws.onerror = () => {
    closed ??= { code: 1006, reason: "" };
    notify();
  };
  const abort = () => {
    closed ??= { code: 1006, reason: "aborted" };
    notify();
  };
  signal.addEventListener("abort", abort);
  try {
    for (;;) {
      if (queue.length > 0) {
        yield queue.shift()!;
        continue;
      }
      if (signal.aborted) throw signal.reason;
      if (closed) {
        if (closed.code === 1000) return;
        throw new SocketClosed(opened, closed.code, closed.reason);
      }
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    signal.removeEventListener("abort", abort);
    if (ws.readyState === WebSocket.CONNECTING || ws.readyState === WebSocket.OPEN) ws.close();
  }
}
