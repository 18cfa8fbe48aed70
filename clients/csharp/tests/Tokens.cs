using System;
using System.Security.Cryptography;
using System.Text;

// Tokens signs player tokens as a studio's auth service would: HS256 JWTs
// with the player as sub, the server's audience and an hour to live.
static class Tokens
{
    public static string Sign(string secret, string player)
    {
        long exp = (long)(DateTime.UtcNow - new DateTime(1970, 1, 1, 0, 0, 0, DateTimeKind.Utc)).TotalSeconds + 3600;
        string head = B64(Encoding.UTF8.GetBytes("{\"alg\":\"HS256\",\"typ\":\"JWT\"}"));
        string body = B64(Encoding.UTF8.GetBytes(Cupid.Json.Write(new System.Collections.Generic.Dictionary<string, object>
        {
            { "sub", player }, { "aud", "cupid" }, { "exp", exp },
        })));
        using (var mac = new HMACSHA256(Encoding.UTF8.GetBytes(secret)))
        {
            string sig = B64(mac.ComputeHash(Encoding.ASCII.GetBytes(head + "." + body)));
            return head + "." + body + "." + sig;
        }
    }

    static string B64(byte[] b)
    {
        return Convert.ToBase64String(b).TrimEnd('=').Replace('+', '-').Replace('/', '_');
    }
}
