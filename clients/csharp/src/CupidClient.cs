using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace Cupid
{
    /// <summary>Settings of a <see cref="CupidClient"/>.</summary>
    public class CupidOptions
    {
        /// <summary>A server key (cupid_sk_…): a game backend acting for any player within the key's scopes.</summary>
        public string ServerKey { get; set; }

        /// <summary>A player token (a JWT the studio's auth service signed): a game client acting as its player.</summary>
        public string PlayerToken { get; set; }

        /// <summary>
        /// The HTTP handler of the calls and the match stream (TLS settings,
        /// proxies); a new HttpClientHandler when null. The ticket WebSocket
        /// is the platform's ClientWebSocket, with its own defaults.
        /// </summary>
        public HttpMessageHandler Handler { get; set; }

        /// <summary>How long a unary call may take; 30 seconds by default. Watches have no limit.</summary>
        public TimeSpan Timeout { get; set; }

        /// <summary>How watches wait between reconnections.</summary>
        public Backoff Backoff { get; set; }

        public CupidOptions()
        {
            Timeout = TimeSpan.FromSeconds(30);
            Backoff = new Backoff();
        }
    }

    /// <summary>
    /// The wait between a watch's reconnections: First, doubling up to Max
    /// (or the server's Retry-After when it asks for longer). Attempts bounds
    /// the reconnections in a row that fail before any event arrives; 0
    /// retries until the watch is cancelled.
    /// </summary>
    public class Backoff
    {
        public TimeSpan First { get; set; }
        public TimeSpan Max { get; set; }
        public int Attempts { get; set; }

        public Backoff()
        {
            First = TimeSpan.FromMilliseconds(100);
            Max = TimeSpan.FromSeconds(5);
        }
    }

    /// <summary>
    /// A client of one Cupid server, speaking Connect's JSON over HTTP and
    /// the ticket WebSocket. It is safe for concurrent use; dispose it when
    /// done. Every call throws <see cref="CupidException"/> for the server's
    /// refusals and for lost connections (code "unavailable"), and
    /// OperationCanceledException when its token is cancelled.
    ///
    /// Calls capture the caller's synchronization context, so a watch's
    /// callbacks run where the watch was started (Unity's main thread when
    /// started from a MonoBehaviour).
    /// </summary>
    public partial class CupidClient : IDisposable
    {
        readonly string baseUrl;
        readonly string credential;
        readonly HttpClient unary;
        readonly HttpClient streams;
        readonly Backoff backoff;

        /// <summary>A client of the server at baseUrl ("http://127.0.0.1:7070").</summary>
        public CupidClient(string baseUrl, CupidOptions options = null)
        {
            if (string.IsNullOrEmpty(baseUrl)) throw new ArgumentException("baseUrl is required, such as http://127.0.0.1:7070", "baseUrl");
            options = options ?? new CupidOptions();
            if (!string.IsNullOrEmpty(options.ServerKey) && !string.IsNullOrEmpty(options.PlayerToken))
                throw new ArgumentException("give ServerKey or PlayerToken, not both", "options");
            this.baseUrl = baseUrl.TrimEnd('/');
            credential = !string.IsNullOrEmpty(options.ServerKey) ? options.ServerKey : options.PlayerToken;
            backoff = options.Backoff ?? new Backoff();
            var handler = options.Handler ?? new HttpClientHandler();
            // Streams stay open for as long as their caller wants; unary
            // calls get the timeout. Both share the handler's connections.
            unary = new HttpClient(handler, options.Handler == null) { Timeout = options.Timeout };
            streams = new HttpClient(handler, false) { Timeout = System.Threading.Timeout.InfiniteTimeSpan };
        }

        public void Dispose()
        {
            streams.Dispose();
            unary.Dispose();
        }

        // ---- TicketService ----

        /// <summary>
        /// Creates one ticket. Set RequestId so that retrying after a lost
        /// answer returns the same ticket instead of refusing a second one.
        /// </summary>
        public async Task<Ticket> CreateTicketAsync(TicketRequest ticket, CancellationToken ct = default(CancellationToken))
        {
            if (ticket == null) throw new ArgumentNullException("ticket");
            var res = await CallAsync("cupid.v1.TicketService/CreateTicket", ticket.ToJson(""), ct);
            return Ticket.FromJson(Wire.Obj(res, "ticket"));
        }

        /// <summary>
        /// Creates up to 1,000 tickets in one call and one durable write,
        /// with a result per ticket in request order: a refused ticket does
        /// not refuse the others. It throws only when the whole call failed
        /// (or a value cannot be sent: nothing is then sent).
        /// </summary>
        public async Task<List<TicketResult>> CreateTicketsAsync(IEnumerable<TicketRequest> tickets, CancellationToken ct = default(CancellationToken))
        {
            if (tickets == null) throw new ArgumentNullException("tickets");
            var list = new List<object>();
            foreach (var t in tickets)
            {
                string f = "tickets[" + list.Count + "]";
                if (t == null) throw new CupidException("invalid_argument", f + ": is null", f);
                list.Add(t.ToJson(f + "."));
            }
            var res = await CallAsync("cupid.v1.TicketService/CreateTickets", new Dictionary<string, object> { { "tickets", list } }, ct);
            return Wire.Objects(res, "results", TicketResult.FromJson);
        }

        /// <summary>Returns a ticket: its state, its match, and why it still waits.</summary>
        public async Task<Ticket> GetTicketAsync(string id, CancellationToken ct = default(CancellationToken))
        {
            var res = await CallAsync("cupid.v1.TicketService/GetTicket", new Dictionary<string, object> { { "id", id ?? "" } }, ct);
            return Ticket.FromJson(Wire.Obj(res, "ticket"));
        }

        /// <summary>Cancels a waiting ticket; one that has ended is refused (failed_precondition).</summary>
        public async Task<Ticket> CancelTicketAsync(string id, CancellationToken ct = default(CancellationToken))
        {
            var res = await CallAsync("cupid.v1.TicketService/CancelTicket", new Dictionary<string, object> { { "id", id ?? "" } }, ct);
            return Ticket.FromJson(Wire.Obj(res, "ticket"));
        }

        /// <summary>Cancels up to 1,000 tickets in one call, with a result per id in request order.</summary>
        public async Task<List<TicketResult>> CancelTicketsAsync(IEnumerable<string> ids, CancellationToken ct = default(CancellationToken))
        {
            if (ids == null) throw new ArgumentNullException("ids");
            var res = await CallAsync("cupid.v1.TicketService/CancelTickets", new Dictionary<string, object> { { "ids", ids.ToList() } }, ct);
            return Wire.Objects(res, "results", TicketResult.FromJson);
        }

        // ---- MatchService ----

        /// <summary>Returns a match with its state and assignment.</summary>
        public async Task<MatchRecord> GetMatchAsync(string id, CancellationToken ct = default(CancellationToken))
        {
            var res = await CallAsync("cupid.v1.MatchService/GetMatch", new Dictionary<string, object> { { "id", id ?? "" } }, ct);
            return MatchRecord.FromJson(Wire.Obj(res, "match"));
        }

        /// <summary>
        /// Tells the server which game server a formed match plays on; the
        /// players' watchers hear it. A match is assigned once: again, or a
        /// released match, is refused with failed_precondition.
        /// </summary>
        public async Task<MatchRecord> AssignMatchAsync(string matchId, Assignment assignment, CancellationToken ct = default(CancellationToken))
        {
            if (assignment == null) throw new ArgumentNullException("assignment");
            var body = new Dictionary<string, object> { { "id", matchId ?? "" }, { "assignment", assignment.ToJson() } };
            var res = await CallAsync("cupid.v1.MatchService/AssignMatch", body, ct);
            return MatchRecord.FromJson(Wire.Obj(res, "match"));
        }

        /// <summary>
        /// Answers a pending match's ready check: accept it, or decline it.
        /// With a player token leave playerId null (a player answers only for
        /// himself); a server key names the player.
        /// </summary>
        public async Task<MatchRecord> AcceptMatchAsync(string matchId, bool accept, string playerId = null, CancellationToken ct = default(CancellationToken))
        {
            var body = new Dictionary<string, object> { { "id", matchId ?? "" }, { "accept", accept } };
            if (!string.IsNullOrEmpty(playerId)) body["playerId"] = playerId;
            var res = await CallAsync("cupid.v1.MatchService/AcceptMatch", body, ct);
            return MatchRecord.FromJson(Wire.Obj(res, "match"));
        }

        // ---- RatingService ----

        /// <summary>
        /// Reports a played match's result; the server rates its players. A
        /// match is rated once: the same report again answers with the first
        /// outcome and Repeated set, a different one is failed_precondition.
        /// </summary>
        public async Task<ResultReport> ReportResultAsync(MatchResult result, CancellationToken ct = default(CancellationToken))
        {
            if (result == null) throw new ArgumentNullException("result");
            var res = await CallAsync("cupid.v1.RatingService/ReportResult", result.ToJson(), ct);
            return ResultReport.FromJson(res);
        }

        /// <summary>A player's ratings, league, flags and low-priority mark; a player token reads its own.</summary>
        public async Task<PlayerRatings> GetPlayerRatingsAsync(string playerId, CancellationToken ct = default(CancellationToken))
        {
            var res = await CallAsync("cupid.v1.RatingService/GetPlayerRatings", new Dictionary<string, object> { { "playerId", playerId ?? "" } }, ct);
            return PlayerRatings.FromJson(res);
        }

        // ---- the Connect protocol ----

        /// <summary>
        /// CallAsync posts one unary Connect call as JSON and returns the
        /// answer's object. Any other procedure of the API can be called
        /// with it ("cupid.v1.TicketService/QueueStats"), with the request
        /// in protobuf's JSON form.
        /// </summary>
        public async Task<Dictionary<string, object>> CallAsync(string procedure, Dictionary<string, object> request, CancellationToken ct = default(CancellationToken))
        {
            string body = Json.Write(request);
            using (var req = new HttpRequestMessage(HttpMethod.Post, baseUrl + "/" + procedure))
            {
                req.Content = new StringContent(body, Encoding.UTF8, "application/json");
                req.Headers.Add("Connect-Protocol-Version", "1");
                Authorize(req);
                HttpResponseMessage res;
                try
                {
                    res = await unary.SendAsync(req, ct);
                }
                catch (OperationCanceledException e)
                {
                    if (ct.IsCancellationRequested) throw;
                    throw new CupidException("deadline_exceeded", procedure + ": no answer within " + unary.Timeout.TotalSeconds + "s", e);
                }
                catch (HttpRequestException e)
                {
                    throw new CupidException("unavailable", procedure + ": " + Innermost(e), e);
                }
                using (res)
                {
                    string text;
                    try
                    {
                        text = await res.Content.ReadAsStringAsync();
                    }
                    catch (Exception e) when (e is IOException || e is HttpRequestException)
                    {
                        throw new CupidException("unavailable", procedure + ": " + Innermost(e), e);
                    }
                    if (res.StatusCode != HttpStatusCode.OK) throw ErrorOf(res, text);
                    var o = ParseObject(text);
                    if (o == null) throw new CupidException("internal", procedure + ": the answer is not a JSON object", null, (int)res.StatusCode);
                    return o;
                }
            }
        }

        void Authorize(HttpRequestMessage req)
        {
            if (!string.IsNullOrEmpty(credential)) req.Headers.TryAddWithoutValidation("Authorization", "Bearer " + credential);
        }

        static Dictionary<string, object> ParseObject(string text)
        {
            try
            {
                return Json.Parse(text) as Dictionary<string, object>;
            }
            catch (FormatException)
            {
                return null;
            }
        }

        // ErrorOf reads a Connect error answer: {"code": …, "message": …},
        // the field in the Cupid-Field header, the wait in Retry-After. An
        // answer that is not one (a proxy's page) gets the code Connect
        // assigns its HTTP status.
        static CupidException ErrorOf(HttpResponseMessage res, string text)
        {
            int status = (int)res.StatusCode;
            var o = ParseObject(text);
            string code = Wire.Str(o, "code");
            string message = Wire.Str(o, "message");
            if (code == "")
            {
                code = CodeOfStatus(status);
                message = "HTTP " + status + (text.Length > 0 ? ": " + (text.Length > 200 ? text.Substring(0, 200) : text) : "");
            }
            string field = null;
            IEnumerable<string> values;
            if (res.Headers.TryGetValues("Cupid-Field", out values)) field = values.FirstOrDefault();
            TimeSpan? retry = null;
            if (res.Headers.RetryAfter != null && res.Headers.RetryAfter.Delta.HasValue) retry = res.Headers.RetryAfter.Delta;
            return new CupidException(code, message, field, status, retry);
        }

        // CodeOfStatus is Connect's mapping of an HTTP status without a
        // Connect error body to a code.
        static string CodeOfStatus(int status)
        {
            switch (status)
            {
                case 400: return "internal";
                case 401: return "unauthenticated";
                case 403: return "permission_denied";
                case 404: return "unimplemented";
                case 429:
                case 502:
                case 503:
                case 504: return "unavailable";
            }
            return "unknown";
        }

        static string Innermost(Exception e)
        {
            while (e.InnerException != null) e = e.InnerException;
            return e.Message;
        }
    }
}
