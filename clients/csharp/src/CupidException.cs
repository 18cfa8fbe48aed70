using System;

namespace Cupid
{
    /// <summary>
    /// An error from the server, or a request the client refused before
    /// sending it. <see cref="Code"/> is the Connect code name the server
    /// gave ("invalid_argument", "not_found", "already_exists",
    /// "failed_precondition", "permission_denied", "unauthenticated",
    /// "resource_exhausted", "unavailable" …), and <see cref="Field"/> the
    /// request field at fault when the server named one
    /// ("players[0].attributes.mmr", "tickets[3].players[0].id"), so a
    /// game can point at what to fix.
    /// </summary>
    public class CupidException : Exception
    {
        /// <summary>The Connect code name, such as "invalid_argument".</summary>
        public string Code { get; private set; }

        /// <summary>The request field the error concerns, or null.</summary>
        public string Field { get; private set; }

        /// <summary>The HTTP status of the answer; 0 when there was none (a bulk result, a stream's end, a refusal in the client).</summary>
        public int HttpStatus { get; private set; }

        /// <summary>How long the server asked the caller to wait (a rate limit's Retry-After), or null.</summary>
        public TimeSpan? RetryAfter { get; private set; }

        public CupidException(string code, string message, string field = null, int httpStatus = 0, TimeSpan? retryAfter = null)
            : base(code + ": " + message)
        {
            Code = code;
            Field = string.IsNullOrEmpty(field) ? null : field;
            HttpStatus = httpStatus;
            RetryAfter = retryAfter;
        }

        /// <summary>An error of the connection (refused, reset, timed out) rather than the server's answer.</summary>
        public CupidException(string code, string message, Exception inner)
            : base(code + ": " + message, inner)
        {
            Code = code;
        }

        /// <summary>
        /// Whether the error is the server's or the connection's passing
        /// state rather than a refusal of the request: the same call may
        /// succeed later.
        /// </summary>
        public bool IsTransient
        {
            get
            {
                switch (Code)
                {
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
        }
    }
}
