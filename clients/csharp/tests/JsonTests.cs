using System;
using System.Collections.Generic;
using Cupid;

// JsonTests check the client's own JSON reader and writer on what the
// server sends and what callers give.
static class JsonTests
{
    public static void Add(Runner r)
    {
        r.Add("json: values round-trip", () => Run(() =>
        {
            var cases = new[]
            {
                new { json = "{\"a\":1.5,\"b\":\"x\\\"y\",\"c\":true,\"d\":[\"p\",\"q\"],\"e\":null,\"f\":{}}", text = "" },
                new { json = "[]", text = "" },
                new { json = "\"\\u00e9t\\u00e9 \\ud83d\\ude00\"", text = "été 😀" },
                new { json = "-0.25e2", text = "" },
                new { json = "\"tab\\tnl\\n\"", text = "tab\tnl\n" },
            };
            foreach (var c in cases)
            {
                object v = Json.Parse(c.json);
                if (c.text != "") Assert.Equal(c.text, v as string, "parse " + c.json);
                string again = Json.Write(v);
                Assert.Equal(Json.Write(Json.Parse(again)), again, "write of " + c.json + " parses back to itself");
            }
            var o = (Dictionary<string, object>)Json.Parse("{\"a\":1.5,\"d\":[\"p\",\"q\"],\"seq\":\"9007199254740993\"}");
            Assert.Equal(1.5, (double)o["a"], "a number");
            Assert.Equal("q", (string)((List<object>)o["d"])[1], "a list's item");
            Assert.Equal("9007199254740993", (string)o["seq"], "a 64-bit integer stays a string");
        }));
        r.Add("json: writes numbers in the invariant culture", () => Run(() =>
        {
            var before = System.Threading.Thread.CurrentThread.CurrentCulture;
            System.Threading.Thread.CurrentThread.CurrentCulture = new System.Globalization.CultureInfo("de-DE");
            try
            {
                Assert.Equal("[1.5,-2,1E+300,7]", Json.Write(new object[] { 1.5, -2.0, 1e300, 7 }), "numbers");
            }
            finally
            {
                System.Threading.Thread.CurrentThread.CurrentCulture = before;
            }
        }));
        r.Add("json: malformed input is refused", () => Run(() =>
        {
            foreach (var bad in new[] { "", "{", "{\"a\"}", "[1,]", "tru", "\"\\x\"", "1 2", "{\"a\":1,}", "\"\u0001\"", "-" })
            {
                bool threw = false;
                try { Json.Parse(bad); }
                catch (FormatException) { threw = true; }
                Assert.True(threw, "Parse(" + bad + ") should fail");
            }
            string deep = new string('[', 100) + new string(']', 100);
            bool deepThrew = false;
            try { Json.Parse(deep); }
            catch (FormatException) { deepThrew = true; }
            Assert.True(deepThrew, "100 nested arrays should be refused");
        }));
        r.Add("json: a number that is not finite is refused with its path", () => Run(() =>
        {
            try
            {
                Json.Write(new Dictionary<string, object> { { "a", new object[] { 1.0, double.NaN } } });
            }
            catch (ArgumentException e)
            {
                Assert.True(e.Message.StartsWith("a[1]: must be a finite number"), "message " + e.Message);
                return;
            }
            throw new AssertionFailed("NaN was written");
        }));
    }

    static System.Threading.Tasks.Task Run(Action a)
    {
        a();
        return System.Threading.Tasks.Task.FromResult(true);
    }
}
