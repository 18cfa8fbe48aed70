using System;
using System.Collections.Generic;

namespace Cupid
{
    /// <summary>
    /// A played match's result (RatingService.ReportResult): places per team
    /// in the match's team order (lower is better, equal places tie), or per
    /// player, or only scores (higher first), and who left early.
    /// </summary>
    public class MatchResult
    {
        public string MatchId { get; set; }
        public List<int> TeamPlaces { get; private set; }
        public Dictionary<string, int> PlayerPlaces { get; private set; }
        public List<double> TeamScores { get; private set; }
        public Dictionary<string, double> PlayerScores { get; private set; }
        public List<string> Leavers { get; private set; }

        public MatchResult()
        {
            TeamPlaces = new List<int>();
            PlayerPlaces = new Dictionary<string, int>();
            TeamScores = new List<double>();
            PlayerScores = new Dictionary<string, double>();
            Leavers = new List<string>();
        }

        public MatchResult(string matchId) : this() { MatchId = matchId; }

        internal Dictionary<string, object> ToJson()
        {
            var o = new Dictionary<string, object> { { "matchId", MatchId ?? "" } };
            if (TeamPlaces.Count > 0) o["teamPlaces"] = TeamPlaces;
            if (PlayerPlaces.Count > 0) o["playerPlaces"] = PlayerPlaces;
            if (TeamScores.Count > 0) o["teamScores"] = Wire.Value(TeamScores, "team_scores");
            if (PlayerScores.Count > 0)
            {
                var scores = new Dictionary<string, object>();
                foreach (var kv in PlayerScores) scores[kv.Key] = Wire.Value(kv.Value, "player_scores." + kv.Key);
                o["playerScores"] = scores;
            }
            if (Leavers.Count > 0) o["leavers"] = Leavers;
            return o;
        }
    }

    /// <summary>What a reported result changed.</summary>
    public class ResultReport
    {
        public string Rating { get; set; }
        public List<RatingChange> Changes { get; set; }
        /// <summary>True when the same result had been reported before; Changes are the first report's.</summary>
        public bool Repeated { get; set; }

        internal static ResultReport FromJson(Dictionary<string, object> o)
        {
            return new ResultReport { Rating = Wire.Str(o, "rating"), Changes = Wire.Objects(o, "changes", RatingChange.FromJson), Repeated = Wire.Bool(o, "repeated") };
        }
    }

    /// <summary>One player's rating change from one result.</summary>
    public class RatingChange
    {
        public string PlayerId { get; set; }
        public int Team { get; set; }
        public int Place { get; set; }
        public double Score { get; set; }
        public double Expected { get; set; }
        public bool Leaver { get; set; }
        public double Before { get; set; }
        public double After { get; set; }
        public int Pending { get; set; }
        public string LeagueBefore { get; set; }
        public string LeagueAfter { get; set; }
        public FairPlayFlags Flags { get; set; }
        public string MatchId { get; set; }
        public DateTime? At { get; set; }
        public long Seq { get; set; }

        internal static RatingChange FromJson(Dictionary<string, object> o)
        {
            return new RatingChange
            {
                PlayerId = Wire.Str(o, "playerId"),
                Team = Wire.Int(o, "team"),
                Place = Wire.Int(o, "place"),
                Score = Wire.Double(o, "score"),
                Expected = Wire.Double(o, "expected"),
                Leaver = Wire.Bool(o, "leaver"),
                Before = Wire.Double(o, "before"),
                After = Wire.Double(o, "after"),
                Pending = Wire.Int(o, "pending"),
                LeagueBefore = Wire.Str(o, "leagueBefore"),
                LeagueAfter = Wire.Str(o, "leagueAfter"),
                Flags = FairPlayFlags.FromJson(Wire.Obj(o, "flags")),
                MatchId = Wire.Str(o, "matchId"),
                At = Wire.Time(o, "at"),
                Seq = Wire.Long(o, "seq"),
            };
        }
    }

    /// <summary>A player's fair-play state, with the reasons in words.</summary>
    public class FairPlayFlags
    {
        public bool Tanking { get; set; }
        public bool Smurf { get; set; }
        public double Ease { get; set; }
        public List<string> Why { get; set; }

        internal static FairPlayFlags FromJson(Dictionary<string, object> o)
        {
            if (o == null) return null;
            return new FairPlayFlags { Tanking = Wire.Bool(o, "tanking"), Smurf = Wire.Bool(o, "smurf"), Ease = Wire.Double(o, "ease"), Why = Wire.Strings(o, "why") };
        }
    }

    /// <summary>A player's ratings (every configured rating), league, flags and low-priority mark.</summary>
    public class PlayerRatings
    {
        public string PlayerId { get; set; }
        public List<PlayerRating> Ratings { get; set; }
        /// <summary>Null unless the player is marked low priority.</summary>
        public LowPriority LowPriority { get; set; }

        internal static PlayerRatings FromJson(Dictionary<string, object> o)
        {
            return new PlayerRatings
            {
                PlayerId = Wire.Str(o, "playerId"),
                Ratings = Wire.Objects(o, "ratings", PlayerRating.FromJson),
                LowPriority = LowPriority.FromJson(Wire.Obj(o, "lowPriority")),
            };
        }
    }

    /// <summary>One rating of a player.</summary>
    public class PlayerRating
    {
        public string Rating { get; set; }
        /// <summary>The conservative estimate leagues and matchmaking read.</summary>
        public double Value { get; set; }
        public double Mu { get; set; }
        public double Sigma { get; set; }
        public double GlickoRating { get; set; }
        public double GlickoDeviation { get; set; }
        public double GlickoVolatility { get; set; }
        public string League { get; set; }
        public int Division { get; set; }
        public int Games { get; set; }
        public int Wins { get; set; }
        public int Losses { get; set; }
        public int Draws { get; set; }
        public int Leaves { get; set; }
        public FairPlayFlags Flags { get; set; }
        /// <summary>The skill his tickets carry (Value with fair play's adjustments).</summary>
        public double Matchmaking { get; set; }

        internal static PlayerRating FromJson(Dictionary<string, object> o)
        {
            return new PlayerRating
            {
                Rating = Wire.Str(o, "rating"),
                Value = Wire.Double(o, "value"),
                Mu = Wire.Double(o, "mu"),
                Sigma = Wire.Double(o, "sigma"),
                GlickoRating = Wire.Double(o, "glickoRating"),
                GlickoDeviation = Wire.Double(o, "glickoDeviation"),
                GlickoVolatility = Wire.Double(o, "glickoVolatility"),
                League = Wire.Str(o, "league"),
                Division = Wire.Int(o, "division"),
                Games = Wire.Int(o, "games"),
                Wins = Wire.Int(o, "wins"),
                Losses = Wire.Int(o, "losses"),
                Draws = Wire.Int(o, "draws"),
                Leaves = Wire.Int(o, "leaves"),
                Flags = FairPlayFlags.FromJson(Wire.Obj(o, "flags")),
                Matchmaking = Wire.Double(o, "matchmaking"),
            };
        }
    }

    /// <summary>A low-priority mark, for a time, a number of rated games, or both.</summary>
    public class LowPriority
    {
        public DateTime? Until { get; set; }
        public int Games { get; set; }
        public string Reason { get; set; }
        public DateTime? SetAt { get; set; }

        internal static LowPriority FromJson(Dictionary<string, object> o)
        {
            if (o == null) return null;
            return new LowPriority { Until = Wire.Time(o, "until"), Games = Wire.Int(o, "games"), Reason = Wire.Str(o, "reason"), SetAt = Wire.Time(o, "setAt") };
        }
    }
}
