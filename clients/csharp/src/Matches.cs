using System;
using System.Collections.Generic;

namespace Cupid
{
    /// <summary>Where a match is in its hand-off to the game's backend.</summary>
    public enum MatchState { Unspecified, Formed, Assigned, Released, Pending, Ended }

    /// <summary>Tickets committed together, split into teams; also the game session they play.</summary>
    public class Match
    {
        public string Id { get; set; }
        public string Queue { get; set; }
        public List<Team> Teams { get; set; }
        public Quality Quality { get; set; }
        public DateTime? CreatedAt { get; set; }
        /// <summary>Where to host the match; empty when the ruleset has no latency rules.</summary>
        public string Region { get; set; }
        /// <summary>The role each player plays, when the ruleset has role quotas.</summary>
        public Dictionary<string, string> Roles { get; set; }
        /// <summary>How many players each team holds at most.</summary>
        public List<int> Seats { get; set; }
        /// <summary>Whether the session is open to backfill.</summary>
        public bool Backfill { get; set; }
        public List<Leaver> Left { get; set; }
        /// <summary>The ready check's deadline, in a queue that asks players to accept matches; null otherwise.</summary>
        public DateTime? AcceptBy { get; set; }

        internal static Match FromJson(Dictionary<string, object> o)
        {
            if (o == null) return null;
            return new Match
            {
                Id = Wire.Str(o, "id"),
                Queue = Wire.Str(o, "queue"),
                Teams = Wire.Objects(o, "teams", t => new Team { TicketIds = Wire.Strings(t, "ticketIds"), PlayerIds = Wire.Strings(t, "playerIds") }),
                Quality = Quality.FromJson(Wire.Obj(o, "quality")),
                CreatedAt = Wire.Time(o, "createdAt"),
                Region = Wire.Str(o, "region"),
                Roles = Wire.Map(o, "roles", v => v as string ?? ""),
                Seats = Wire.List(o, "seats", v => v is double ? (int)(double)v : 0),
                Backfill = Wire.Bool(o, "backfill"),
                Left = Wire.Objects(o, "left", l => new Leaver { PlayerId = Wire.Str(l, "playerId"), Team = Wire.Int(l, "team"), At = Wire.Time(l, "at"), Replaced = Wire.Bool(l, "replaced") }),
                AcceptBy = Wire.Time(o, "acceptBy"),
            };
        }
    }

    public class Team
    {
        public List<string> TicketIds { get; set; }
        public List<string> PlayerIds { get; set; }
    }

    /// <summary>One score in [0,1] and the per-criterion parts it came from.</summary>
    public class Quality
    {
        public double Score { get; set; }
        public Dictionary<string, double> Parts { get; set; }

        internal static Quality FromJson(Dictionary<string, object> o)
        {
            if (o == null) return null;
            return new Quality { Score = Wire.Double(o, "score"), Parts = Wire.Map(o, "parts", v => v is double ? (double)v : 0) };
        }
    }

    /// <summary>A player who left a game session.</summary>
    public class Leaver
    {
        public string PlayerId { get; set; }
        public int Team { get; set; }
        public DateTime? At { get; set; }
        /// <summary>True when his seat stayed open to backfill.</summary>
        public bool Replaced { get; set; }
    }

    /// <summary>Where a match is played, as the backend that placed it says.</summary>
    public class Assignment
    {
        /// <summary>The address players connect to (host:port, a URL …). Required.</summary>
        public string Server { get; set; }
        public string SessionId { get; set; }
        /// <summary>Free-form data the game's clients read (a join token, a port …).</summary>
        public Dictionary<string, string> Connection { get; private set; }
        /// <summary>When it was assigned (set by the server).</summary>
        public DateTime? AssignedAt { get; set; }

        public Assignment() { Connection = new Dictionary<string, string>(); }

        internal Dictionary<string, object> ToJson()
        {
            var o = new Dictionary<string, object> { { "server", Server ?? "" } };
            if (!string.IsNullOrEmpty(SessionId)) o["sessionId"] = SessionId;
            if (Connection.Count > 0) o["connection"] = Connection;
            return o;
        }

        internal static Assignment FromJson(Dictionary<string, object> o)
        {
            if (o == null) return null;
            var a = new Assignment { Server = Wire.Str(o, "server"), SessionId = Wire.Str(o, "sessionId"), AssignedAt = Wire.Time(o, "assignedAt") };
            foreach (var kv in Wire.Map(o, "connection", v => v as string ?? "")) a.Connection[kv.Key] = kv.Value;
            return a;
        }
    }

    /// <summary>A match with its hand-off state.</summary>
    public class MatchRecord
    {
        public Match Match { get; set; }
        public MatchState State { get; set; }
        /// <summary>Set when assigned.</summary>
        public Assignment Assignment { get; set; }
        public DateTime? UpdatedAt { get; set; }
        /// <summary>Why a released match was released.</summary>
        public string Reason { get; set; }
        /// <summary>The players' answers to the match's ready check, in the order given.</summary>
        public List<MatchAnswer> Answers { get; set; }
        /// <summary>How many players have accepted.</summary>
        public int Accepted { get; set; }

        internal static MatchRecord FromJson(Dictionary<string, object> o)
        {
            if (o == null) return null;
            return new MatchRecord
            {
                Match = Match.FromJson(Wire.Obj(o, "match")),
                State = Wire.Enum(o, "state", "MATCH_STATE_", MatchState.Unspecified),
                Assignment = Assignment.FromJson(Wire.Obj(o, "assignment")),
                UpdatedAt = Wire.Time(o, "updatedAt"),
                Reason = Wire.Str(o, "reason"),
                Answers = Wire.Objects(o, "answers", a => new MatchAnswer { PlayerId = Wire.Str(a, "playerId"), Accept = Wire.Bool(a, "accept"), At = Wire.Time(a, "at") }),
                Accepted = Wire.Int(o, "accepted"),
            };
        }
    }

    /// <summary>One player's answer to a ready check.</summary>
    public class MatchAnswer
    {
        public string PlayerId { get; set; }
        public bool Accept { get; set; }
        public DateTime? At { get; set; }
    }

    /// <summary>One entry of a queue's match log, with the whole match.</summary>
    public class MatchEvent
    {
        public const string Formed = "formed";
        public const string Assigned = "assigned";
        public const string Released = "released";
        public const string Backfilled = "backfilled";
        public const string BackfillOpened = "backfill_opened";
        public const string BackfillClosed = "backfill_closed";
        public const string Left = "left";
        public const string Ended = "ended";

        /// <summary>Grows across the server; keep the last one handled and resume after it.</summary>
        public long Seq { get; set; }
        public string Kind { get; set; }
        public DateTime? At { get; set; }
        public Match Match { get; set; }
        /// <summary>Set when Kind is assigned.</summary>
        public Assignment Assignment { get; set; }
        /// <summary>Set when Kind is released.</summary>
        public string Reason { get; set; }
        /// <summary>The newcomers' tickets when Kind is backfilled.</summary>
        public List<string> TicketIds { get; set; }
        /// <summary>The newcomers when Kind is backfilled; the leavers when Kind is left.</summary>
        public List<string> PlayerIds { get; set; }

        internal static MatchEvent FromJson(Dictionary<string, object> o)
        {
            return new MatchEvent
            {
                Seq = Wire.Long(o, "seq"),
                Kind = Wire.Str(o, "kind"),
                At = Wire.Time(o, "at"),
                Match = Match.FromJson(Wire.Obj(o, "match")),
                Assignment = Assignment.FromJson(Wire.Obj(o, "assignment")),
                Reason = Wire.Str(o, "reason"),
                TicketIds = Wire.Strings(o, "ticketIds"),
                PlayerIds = Wire.Strings(o, "playerIds"),
            };
        }
    }
}
