// The test program's own small harness: named async tests run one after
// another, each failure with its message, and a closing line
// "N passed, M failed" that the Go test (csharp_test.go) reads. The exit
// code is 1 when a test failed.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Threading.Tasks;
using Cupid;

sealed class AssertionFailed : Exception
{
    public AssertionFailed(string message) : base(message) { }
}

static class Assert
{
    public static void True(bool cond, string what)
    {
        if (!cond) throw new AssertionFailed(what);
    }

    public static void Equal<T>(T want, T got, string what)
    {
        if (!EqualityComparer<T>.Default.Equals(want, got))
            throw new AssertionFailed(what + ": got " + Show(got) + ", want " + Show(want));
    }

    public static void Sequence<T>(IEnumerable<T> want, IEnumerable<T> got, string what)
    {
        if (!want.SequenceEqual(got))
            throw new AssertionFailed(what + ": got [" + string.Join(", ", got) + "], want [" + string.Join(", ", want) + "]");
    }

    // Refused runs a call that must fail with a CupidException of the code
    // given, and returns it for further checks.
    public static async Task<CupidException> Refused(string code, Func<Task> call, string what)
    {
        try
        {
            await call();
        }
        catch (CupidException e)
        {
            if (e.Code != code) throw new AssertionFailed(what + ": refused with " + e.Code + " (" + e.Message + "), want " + code);
            return e;
        }
        throw new AssertionFailed(what + ": succeeded, want " + code);
    }

    static string Show<T>(T v)
    {
        return v == null ? "null" : "\"" + v + "\"";
    }
}

sealed class Runner
{
    readonly List<KeyValuePair<string, Func<Task>>> tests = new List<KeyValuePair<string, Func<Task>>>();

    public void Add(string name, Func<Task> test)
    {
        tests.Add(new KeyValuePair<string, Func<Task>>(name, test));
    }

    // Run runs the tests whose name contains filter (all when empty). A test
    // that has not finished after two minutes is reported as hung, so a lost
    // event fails the run instead of stalling it; no assertion depends on
    // time.
    public int Run(string filter)
    {
        int passed = 0, failed = 0;
        foreach (var t in tests)
        {
            if (filter != "" && !t.Key.Contains(filter)) continue;
            var clock = Stopwatch.StartNew();
            string error = null;
            try
            {
                var task = t.Value();
                if (!task.Wait(TimeSpan.FromMinutes(2))) error = "hung: not finished after 2 minutes";
            }
            catch (AggregateException e)
            {
                var inner = e.Flatten().InnerException;
                error = inner is AssertionFailed ? inner.Message : inner.ToString();
            }
            catch (Exception e)
            {
                error = e.ToString();
            }
            if (error == null)
            {
                passed++;
                Console.WriteLine("ok   " + t.Key + " (" + clock.ElapsedMilliseconds + " ms)");
            }
            else
            {
                failed++;
                Console.WriteLine("FAIL " + t.Key + ": " + error);
            }
        }
        Console.WriteLine(passed + " passed, " + failed + " failed");
        return failed == 0 ? 0 : 1;
    }
}
