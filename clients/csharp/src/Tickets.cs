using System;
using System.Collections.Generic;

namespace Cupid
{
    /// <summary>Where a ticket is in its life.</summary>
    public enum TicketState { Unspecified, Waiting, Matched, Cancelled, Expired }

    /// <summary>
    /// One person in a ticket. Attribute values are plain C# values: a
    /// number (double, or any integer type), a string, a bool, or a list of
    /// them (List&lt;string&gt;, string[] …). Values read back from the
    /// server are double, string, bool or List&lt;object&gt;.
    /// </summary>
    public class Player
    {
        public string Id { get; set; }
        public Dictionary<string, object> Attributes { get; private set; }

        public Player() { Attributes = new Dictionary<string, object>(); }

        public Player(string id) : this() { Id = id; }

        internal Dictionary<string, object> ToJson(string field)
        {
            var o = new Dictionary<string, object> { { "id", Id ?? "" } };
            if (Attributes.Count > 0) o["attributes"] = Wire.Values(Attributes, field + ".attributes");
            return o;
        }

        internal static Player FromJson(Dictionary<string, object> o)
        {
            var p = new Player(Wire.Str(o, "id"));
            var attrs = Wire.Obj(o, "attributes");
            if (attrs != null) foreach (var kv in attrs) p.Attributes[kv.Key] = kv.Value;
            return p;
        }
    }

    /// <summary>A ticket to create: one player, or a party kept together on one team.</summary>
    public class TicketRequest
    {
        /// <summary>The queue's name, as in the server's configuration.</summary>
        public string Queue { get; set; }
        public List<Player> Players { get; private set; }
        /// <summary>Round-trip time in milliseconds to each region.</summary>
        public Dictionary<string, int> Latencies { get; private set; }
        /// <summary>Ticket-wide values, such as match options.</summary>
        public Dictionary<string, object> Attributes { get; private set; }
        /// <summary>A key of the caller's that makes the create idempotent: a retry returns the first ticket.</summary>
        public string RequestId { get; set; }
        /// <summary>The game server version; tickets of different versions never meet.</summary>
        public string Version { get; set; }
        /// <summary>A key that splits the queue further (a game mode, say).</summary>
        public string CustomKey { get; set; }
        /// <summary>Cancel the players' live tickets in this queue and take their place, instead of being refused with already_exists.</summary>
        public bool Replace { get; set; }

        public TicketRequest()
        {
            Players = new List<Player>();
            Latencies = new Dictionary<string, int>();
            Attributes = new Dictionary<string, object>();
        }

        public TicketRequest(string queue, params Player[] players) : this()
        {
            Queue = queue;
            Players.AddRange(players);
        }

        // field is the request's path in the call ("" for CreateTicket,
        // "tickets[3]." for CreateTickets), so a value refused here is named
        // as the server would name it.
        internal Dictionary<string, object> ToJson(string field)
        {
            var o = new Dictionary<string, object> { { "queue", Queue ?? "" } };
            var players = new List<object>();
            for (int i = 0; i < Players.Count; i++)
            {
                string f = field + "players[" + i + "]";
                if (Players[i] == null) throw new CupidException("invalid_argument", f + ": is null", f);
                players.Add(Players[i].ToJson(f));
            }
            o["players"] = players;
            if (Latencies.Count > 0) o["latencies"] = Latencies;
            if (Attributes.Count > 0) o["attributes"] = Wire.Values(Attributes, field + "attributes");
            if (!string.IsNullOrEmpty(RequestId)) o["requestId"] = RequestId;
            if (!string.IsNullOrEmpty(Version)) o["version"] = Version;
            if (!string.IsNullOrEmpty(CustomKey)) o["customKey"] = CustomKey;
            if (Replace) o["replace"] = true;
            return o;
        }
    }

    /// <summary>A ticket as the server has it.</summary>
    public class Ticket
    {
        public string Id { get; set; }
        public string Queue { get; set; }
        public string Version { get; set; }
        public string CustomKey { get; set; }
        public List<Player> Players { get; set; }
        public Dictionary<string, int> Latencies { get; set; }
        public Dictionary<string, object> Attributes { get; set; }
        public string RequestId { get; set; }
        public TicketState State { get; set; }
        public DateTime? CreatedAt { get; set; }
        public DateTime? ExpiresAt { get; set; }
        /// <summary>How long it waited: until now while waiting, else until it was settled.</summary>
        public TimeSpan? Waited { get; set; }
        public string MatchId { get; set; }
        public Match Match { get; set; }
        /// <summary>Why a waiting ticket is still waiting.</summary>
        public WaitExplanation Why { get; set; }
        /// <summary>Why the server ended the ticket, when it did.</summary>
        public string Reason { get; set; }

        internal static Ticket FromJson(Dictionary<string, object> o)
        {
            if (o == null) return null;
            return new Ticket
            {
                Id = Wire.Str(o, "id"),
                Queue = Wire.Str(o, "queue"),
                Version = Wire.Str(o, "version"),
                CustomKey = Wire.Str(o, "customKey"),
                Players = Wire.Objects(o, "players", Player.FromJson),
                Latencies = Wire.Map(o, "latencies", v => v is double ? (int)(double)v : 0),
                Attributes = Wire.Map(o, "attributes", v => v),
                RequestId = Wire.Str(o, "requestId"),
                State = Wire.Enum(o, "state", "TICKET_STATE_", TicketState.Unspecified),
                CreatedAt = Wire.Time(o, "createdAt"),
                ExpiresAt = Wire.Time(o, "expiresAt"),
                Waited = Wire.Duration(o, "waited"),
                MatchId = Wire.Str(o, "matchId"),
                Match = Match.FromJson(Wire.Obj(o, "match")),
                Why = WaitExplanation.FromJson(Wire.Obj(o, "why")),
                Reason = Wire.Str(o, "reason"),
            };
        }
    }

    /// <summary>The answer to "why am I still waiting?".</summary>
    public class WaitExplanation
    {
        public string Summary { get; set; }
        public List<RuleBlock> Blocks { get; set; }
        /// <summary>When the next relaxation step widens the rules; null when none is due.</summary>
        public DateTime? NextRelaxation { get; set; }
        public long Candidates { get; set; }

        internal static WaitExplanation FromJson(Dictionary<string, object> o)
        {
            if (o == null) return null;
            return new WaitExplanation
            {
                Summary = Wire.Str(o, "summary"),
                Blocks = Wire.Objects(o, "blocks", b => new RuleBlock { Rule = Wire.Str(b, "rule"), Excluded = Wire.Long(b, "excluded"), Detail = Wire.Str(b, "detail") }),
                NextRelaxation = Wire.Time(o, "nextRelaxation"),
                Candidates = Wire.Long(o, "candidates"),
            };
        }
    }

    /// <summary>How many otherwise possible partners a rule keeps out.</summary>
    public class RuleBlock
    {
        public string Rule { get; set; }
        public long Excluded { get; set; }
        public string Detail { get; set; }
    }

    /// <summary>
    /// One change to a ticket. Kind is one of the constants below; a watch
    /// ends with matched (assigned when waiting for the assignment),
    /// cancelled or expired.
    /// </summary>
    public class TicketEvent
    {
        public const string Created = "created";
        public const string Proposed = "proposed";
        public const string Matched = "matched";
        public const string Assigned = "assigned";
        public const string Requeued = "requeued";
        public const string Cancelled = "cancelled";
        public const string Expired = "expired";

        /// <summary>The event's sequence number: a watch resumes after the last one seen.</summary>
        public long Seq { get; set; }
        public string TicketId { get; set; }
        public string Kind { get; set; }
        public DateTime? At { get; set; }
        /// <summary>Set when Kind is proposed, matched or assigned.</summary>
        public Match Match { get; set; }
        /// <summary>Why the server ended the ticket, or why its match was released (requeued).</summary>
        public string Reason { get; set; }
        /// <summary>Set when Kind is assigned: where the match is played.</summary>
        public Assignment Assignment { get; set; }

        internal static TicketEvent FromJson(Dictionary<string, object> o)
        {
            return new TicketEvent
            {
                Seq = Wire.Long(o, "seq"),
                TicketId = Wire.Str(o, "ticketId"),
                Kind = Wire.Str(o, "kind"),
                At = Wire.Time(o, "at"),
                Match = Match.FromJson(Wire.Obj(o, "match")),
                Reason = Wire.Str(o, "reason"),
                Assignment = Assignment.FromJson(Wire.Obj(o, "assignment")),
            };
        }
    }

    /// <summary>
    /// What became of one ticket of a bulk call (CreateTicketsAsync,
    /// CancelTicketsAsync): the ticket, or the error that refused it, whose
    /// Field names it within the call ("tickets[3].players[0].id", "ids[2]").
    /// </summary>
    public class TicketResult
    {
        public Ticket Ticket { get; set; }
        /// <summary>True when a request id matched an earlier ticket, which is returned.</summary>
        public bool Existed { get; set; }
        public CupidException Error { get; set; }

        internal static TicketResult FromJson(Dictionary<string, object> o)
        {
            var r = new TicketResult { Ticket = Ticket.FromJson(Wire.Obj(o, "ticket")), Existed = Wire.Bool(o, "existed") };
            string code = Wire.Str(o, "errorCode");
            if (code != "") r.Error = new CupidException(code, Wire.Str(o, "error"), Wire.Str(o, "errorField"));
            return r;
        }
    }
}
