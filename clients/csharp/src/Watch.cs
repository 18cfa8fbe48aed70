using System;
using System.Collections.Generic;
using System.IO;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Net.WebSockets;
using System.Runtime.ExceptionServices;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace Cupid
{
    // The watches: a ticket's events over the WebSocket, a queue's matches
    // over a Connect server stream. Both reconnect after a lost connection
    // and resume after the last event delivered, by sequence number, and
    // drop anything at or below it, so the caller sees each event once.
    public partial class CupidClient
    {
        /// <summary>
        /// Calls onEvent with each event of a ticket after afterSeq (0: from
        /// its creation), in order, and returns the final one: matched
        /// (assigned when waitForAssignment is set), cancelled or expired. A
        /// dropped connection is retried with the client's backoff, resuming
        /// after the last event onEvent saw, so it sees every event once. It
        /// throws onEvent's exception, the server's refusal of the watch (an
        /// unknown ticket, a caller without permission) as a
        /// CupidException, or OperationCanceledException.
        /// </summary>
        public async Task<TicketEvent> WatchTicketAsync(string ticketId, long afterSeq, Func<TicketEvent, Task> onEvent,
            bool waitForAssignment = false, CancellationToken ct = default(CancellationToken))
        {
            if (string.IsNullOrEmpty(ticketId)) throw new CupidException("invalid_argument", "id: is required", "id");
            TicketEvent final = null;
            long after = afterSeq;
            var retry = new Retry(backoff, "ticket " + ticketId);
            while (true)
            {
                ct.ThrowIfCancellationRequested();
                var uri = WebSocketUri("/v1/tickets/" + Uri.EscapeDataString(ticketId) + "/ws?after_seq=" + after +
                    (waitForAssignment ? "&wait_for_assignment=true" : ""));
                bool progressed = false;
                Exception failure = null;
                using (var ws = new ClientWebSocket())
                {
                    if (!string.IsNullOrEmpty(credential)) ws.Options.SetRequestHeader("Authorization", "Bearer " + credential);
                    bool connected = false;
                    try
                    {
                        await ws.ConnectAsync(uri, ct);
                        connected = true;
                        while (true)
                        {
                            string text = await ReceiveText(ws, ct);
                            if (text == null)
                            {
                                if (ws.CloseStatus == WebSocketCloseStatus.NormalClosure)
                                {
                                    await CloseQuietly(ws);
                                    // The server ends the socket after the final event (which
                                    // an earlier connection may have delivered already).
                                    return final;
                                }
                                throw new CupidException("unavailable", "the server closed the watch of ticket " + ticketId + ": " +
                                    ws.CloseStatus + " " + ws.CloseStatusDescription);
                            }
                            var ev = ParseEvent(text, TicketEvent.FromJson);
                            final = ev;
                            if (ev.Seq <= after) continue; // seen already
                            try
                            {
                                if (onEvent != null) await onEvent(ev);
                            }
                            catch (Exception e)
                            {
                                throw new CallbackException(e);
                            }
                            after = ev.Seq;
                            progressed = true;
                        }
                    }
                    catch (CallbackException e)
                    {
                        ExceptionDispatchInfo.Capture(e.InnerException).Throw();
                    }
                    catch (Exception) when (ct.IsCancellationRequested)
                    {
                        ct.ThrowIfCancellationRequested();
                    }
                    catch (Exception e) when (IsConnectionError(e))
                    {
                        failure = e;
                    }
                    if (!connected && failure is WebSocketException)
                    {
                        // A WebSocket that did not open hides the HTTP answer:
                        // ask the same question as a call, whose refusal (not
                        // found, not allowed) has a code and a field.
                        try
                        {
                            await GetTicketAsync(ticketId, ct);
                        }
                        catch (CupidException e) when (!e.IsTransient)
                        {
                            throw;
                        }
                        catch (CupidException e)
                        {
                            failure = e;
                        }
                    }
                }
                await retry.Wait(failure, progressed, ct);
            }
        }

        /// <summary>WatchTicketAsync with a synchronous callback.</summary>
        public Task<TicketEvent> WatchTicketAsync(string ticketId, long afterSeq, Action<TicketEvent> onEvent,
            bool waitForAssignment = false, CancellationToken ct = default(CancellationToken))
        {
            return WatchTicketAsync(ticketId, afterSeq, Sync(onEvent), waitForAssignment, ct);
        }

        /// <summary>
        /// Waits until a ticket ends and returns its final event: matched
        /// (with the match), or cancelled or expired (with the reason).
        /// onEvent, when given, sees every event on the way (proposed, for a
        /// ready check's "accept?" dialog).
        /// </summary>
        public Task<TicketEvent> WaitUntilMatchedAsync(string ticketId, Func<TicketEvent, Task> onEvent = null, CancellationToken ct = default(CancellationToken))
        {
            return WatchTicketAsync(ticketId, 0, onEvent, false, ct);
        }

        /// <summary>
        /// Waits until a ticket's match is assigned a game server and returns
        /// the assigned event (its Assignment says where to connect), or the
        /// ticket's end (cancelled, expired). A match released unassigned puts
        /// the ticket back in the queue (requeued), and the wait goes on.
        /// </summary>
        public Task<TicketEvent> WaitUntilAssignedAsync(string ticketId, Func<TicketEvent, Task> onEvent = null, CancellationToken ct = default(CancellationToken))
        {
            return WatchTicketAsync(ticketId, 0, onEvent, true, ct);
        }

        /// <summary>
        /// Calls onEvent with each event of a queue's match log after afterSeq
        /// — formed (a match to give a game server), assigned, released, and
        /// the sessions' backfilled, left, ended … — in order, until ct is
        /// cancelled (OperationCanceledException) or onEvent throws (its
        /// exception). A backend keeps the Seq of the last event it handled,
        /// with what it did about it, and passes it again after a restart: it
        /// misses nothing and sees nothing twice. Lost connections are retried
        /// as in WatchTicketAsync. Needs a server key with the tickets scope.
        /// </summary>
        public async Task WatchMatchesAsync(string queue, long afterSeq, Func<MatchEvent, Task> onEvent, CancellationToken ct = default(CancellationToken))
        {
            if (onEvent == null) throw new ArgumentNullException("onEvent");
            long after = afterSeq;
            var retry = new Retry(backoff, "the matches of " + queue);
            while (true)
            {
                ct.ThrowIfCancellationRequested();
                bool progressed = false;
                Exception failure = null;
                try
                {
                    var request = new Dictionary<string, object> { { "queue", queue ?? "" }, { "afterSeq", after.ToString() } };
                    await ServerStream("cupid.v1.MatchService/WatchMatches", request, async text =>
                    {
                        var ev = ParseEvent(text, MatchEvent.FromJson);
                        if (ev.Seq <= after) return; // seen already
                        try
                        {
                            await onEvent(ev);
                        }
                        catch (Exception e)
                        {
                            throw new CallbackException(e);
                        }
                        after = ev.Seq;
                        progressed = true;
                    }, ct);
                    // The match stream has no last event: a server that ends
                    // it is going away.
                    failure = new CupidException("unavailable", "the server ended the match stream of " + queue, (Exception)null);
                }
                catch (CallbackException e)
                {
                    ExceptionDispatchInfo.Capture(e.InnerException).Throw();
                }
                catch (Exception) when (ct.IsCancellationRequested)
                {
                    ct.ThrowIfCancellationRequested();
                }
                catch (Exception e) when (IsConnectionError(e))
                {
                    failure = e;
                }
                await retry.Wait(failure, progressed, ct);
            }
        }

        /// <summary>WatchMatchesAsync with a synchronous callback.</summary>
        public Task WatchMatchesAsync(string queue, long afterSeq, Action<MatchEvent> onEvent, CancellationToken ct = default(CancellationToken))
        {
            if (onEvent == null) throw new ArgumentNullException("onEvent");
            return WatchMatchesAsync(queue, afterSeq, Sync(onEvent), ct);
        }

        static Func<T, Task> Sync<T>(Action<T> fn)
        {
            if (fn == null) return null;
            return x => { fn(x); return Task.FromResult(true); };
        }

        // CallbackException carries the caller's own exception out of a
        // stream, so that it is never taken for a lost connection.
        sealed class CallbackException : Exception
        {
            public CallbackException(Exception inner) : base(inner.Message, inner) { }
        }

        // Retry is a watch's backoff: the wait doubles after each failed
        // reconnection and starts again after one that delivered an event.
        sealed class Retry
        {
            readonly Backoff b;
            readonly string what;
            TimeSpan wait;
            int failures;

            public Retry(Backoff b, string what)
            {
                this.b = b;
                this.what = what;
                wait = b.First;
            }

            public async Task Wait(Exception failure, bool progressed, CancellationToken ct)
            {
                var ce = failure as CupidException;
                if (ce != null && !ce.IsTransient) ExceptionDispatchInfo.Capture(ce).Throw();
                if (progressed)
                {
                    wait = b.First;
                    failures = 0;
                }
                failures++;
                if (b.Attempts > 0 && failures > b.Attempts)
                    throw new CupidException("unavailable", "watching " + what + ": gave up after " + b.Attempts + " reconnections: " +
                        (failure == null ? "" : failure.Message), failure);
                var delay = wait;
                if (ce != null && ce.RetryAfter.HasValue && ce.RetryAfter.Value > delay) delay = ce.RetryAfter.Value;
                await Task.Delay(delay, ct);
                wait = TimeSpan.FromTicks(Math.Min(wait.Ticks * 2, b.Max.Ticks));
            }
        }

        // IsConnectionError says whether an exception of a watch is the
        // connection's (retried when transient) rather than a bug. A
        // cancellation that is not the caller's is a timed-out or aborted
        // connection.
        static bool IsConnectionError(Exception e)
        {
            return e is CupidException || e is WebSocketException || e is IOException || e is HttpRequestException ||
                e is ObjectDisposedException || e is OperationCanceledException;
        }

        Uri WebSocketUri(string path)
        {
            string url = baseUrl + path;
            if (url.StartsWith("https://", StringComparison.OrdinalIgnoreCase)) url = "wss://" + url.Substring(8);
            else if (url.StartsWith("http://", StringComparison.OrdinalIgnoreCase)) url = "ws://" + url.Substring(7);
            return new Uri(url);
        }

        static T ParseEvent<T>(string text, Func<Dictionary<string, object>, T> read)
        {
            Dictionary<string, object> o = null;
            try
            {
                o = Json.Parse(text) as Dictionary<string, object>;
            }
            catch (FormatException)
            {
            }
            if (o == null) throw new CupidException("internal", "the server sent an event that is not a JSON object", (Exception)null);
            return read(o);
        }

        // The largest event accepted: a match of many players with its
        // quality is a few kilobytes; this bounds a broken server.
        const int MaxMessage = 16 << 20;

        // ReceiveText reads one whole text message; null when the server
        // closed the socket.
        static async Task<string> ReceiveText(ClientWebSocket ws, CancellationToken ct)
        {
            var buf = new ArraySegment<byte>(new byte[16 << 10]);
            using (var msg = new MemoryStream())
            {
                while (true)
                {
                    var r = await ws.ReceiveAsync(buf, ct);
                    if (r.MessageType == WebSocketMessageType.Close) return null;
                    msg.Write(buf.Array, 0, r.Count);
                    if (msg.Length > MaxMessage) throw new CupidException("resource_exhausted", "an event of more than 16 MiB", (Exception)null);
                    if (r.EndOfMessage) return Encoding.UTF8.GetString(msg.GetBuffer(), 0, (int)msg.Length);
                }
            }
        }

        static async Task CloseQuietly(ClientWebSocket ws)
        {
            try
            {
                if (ws.State == WebSocketState.CloseReceived)
                    await ws.CloseOutputAsync(WebSocketCloseStatus.NormalClosure, "", CancellationToken.None);
            }
            catch (Exception)
            {
                // The watch is over either way.
            }
        }

        // ServerStream runs one Connect server-streaming call: the request
        // and every answer are enveloped (a flags byte, a 4-byte big-endian
        // length, the JSON message); the last envelope has flag 2 and carries
        // the stream's error, if any. It returns when the server ended the
        // stream cleanly.
        async Task ServerStream(string procedure, Dictionary<string, object> request, Func<string, Task> onMessage, CancellationToken ct)
        {
            byte[] body = Encoding.UTF8.GetBytes(Json.Write(request));
            var framed = new byte[5 + body.Length];
            WriteLength(framed, body.Length);
            Buffer.BlockCopy(body, 0, framed, 5, body.Length);
            using (var req = new HttpRequestMessage(HttpMethod.Post, baseUrl + "/" + procedure))
            {
                req.Content = new ByteArrayContent(framed);
                req.Content.Headers.ContentType = new MediaTypeHeaderValue("application/connect+json");
                req.Headers.Add("Connect-Protocol-Version", "1");
                Authorize(req);
                HttpResponseMessage res;
                try
                {
                    res = await streams.SendAsync(req, HttpCompletionOption.ResponseHeadersRead, ct);
                }
                catch (HttpRequestException e)
                {
                    throw new CupidException("unavailable", procedure + ": " + Innermost(e), e);
                }
                using (res)
                using (ct.Register(() => res.Dispose())) // a read blocked in the socket ends with the token
                {
                    if ((int)res.StatusCode != 200)
                        throw ErrorOf(res, await res.Content.ReadAsStringAsync());
                    var stream = await res.Content.ReadAsStreamAsync();
                    var head = new byte[5];
                    while (true)
                    {
                        if (!await ReadFull(stream, head, head.Length, ct))
                            throw new CupidException("unavailable", procedure + ": the stream ended without its end message", (Exception)null);
                        int flags = head[0];
                        int length = (head[1] << 24) | (head[2] << 16) | (head[3] << 8) | head[4];
                        if (length < 0 || length > MaxMessage)
                            throw new CupidException("internal", procedure + ": a message of " + (uint)length + " bytes", (Exception)null);
                        if ((flags & 1) != 0)
                            throw new CupidException("internal", procedure + ": a compressed message, which was not asked for", (Exception)null);
                        var msg = new byte[length];
                        if (!await ReadFull(stream, msg, length, ct))
                            throw new CupidException("unavailable", procedure + ": the stream broke off in a message", (Exception)null);
                        string text = Encoding.UTF8.GetString(msg);
                        if ((flags & 2) != 0)
                        {
                            var end = ParseObject(text);
                            var err = Wire.Obj(end, "error");
                            if (err != null) throw EndStreamError(err, Wire.Obj(end, "metadata"));
                            return;
                        }
                        await onMessage(text);
                    }
                }
            }
        }

        static CupidException EndStreamError(Dictionary<string, object> err, Dictionary<string, object> metadata)
        {
            string field = null;
            if (metadata != null)
            {
                foreach (var kv in metadata)
                {
                    var values = kv.Value as List<object>;
                    if (string.Equals(kv.Key, "Cupid-Field", StringComparison.OrdinalIgnoreCase) && values != null && values.Count > 0)
                        field = values[0] as string;
                }
            }
            string code = Wire.Str(err, "code");
            return new CupidException(code == "" ? "unknown" : code, Wire.Str(err, "message"), field);
        }

        static void WriteLength(byte[] b, int n)
        {
            b[0] = 0;
            b[1] = (byte)(n >> 24);
            b[2] = (byte)(n >> 16);
            b[3] = (byte)(n >> 8);
            b[4] = (byte)n;
        }

        // ReadFull fills buf[0:n]; false when the stream ended first (at a
        // message boundary or inside one).
        static async Task<bool> ReadFull(Stream s, byte[] buf, int n, CancellationToken ct)
        {
            int got = 0;
            while (got < n)
            {
                int r = await s.ReadAsync(buf, got, n - got, ct);
                if (r == 0) return false;
                got += r;
            }
            return true;
        }
    }
}
