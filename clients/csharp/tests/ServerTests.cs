using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Cupid;

// ServerTests run the client against a real server that the Go test
// started (csharp_test.go): CUPID_URL serves testdata/cupid.yaml (auth on:
// CUPID_KEY is a server key with the tickets scope, CUPID_SECRET signs player
// tokens) and CUPID_DEMO_URL serves the built-in demo, open, for the quick
// start.
static class ServerTests
{
    static string url, demoUrl, key, secret;
    // Each run's players and versions are its own, so runs never meet.
    static readonly string run = Guid.NewGuid().ToString("N").Substring(0, 8);
    // Quick backoff: the tests cut connections on purpose.
    static readonly Backoff fast = new Backoff { First = TimeSpan.FromMilliseconds(20), Max = TimeSpan.FromMilliseconds(200) };

    static int Main(string[] args)
    {
        url = Need("CUPID_URL");
        demoUrl = Need("CUPID_DEMO_URL");
        key = Need("CUPID_KEY");
        secret = Need("CUPID_SECRET");
        var r = new Runner();
        JsonTests.Add(r);
        // The allocator example serves the duel queue (a ready check) for
        // the whole run: the ready-check tests need its assignments.
        allocatorStop = new CancellationTokenSource();
        allocator = Allocator.RunAsync(url, key, allocatorStop.Token);
        Add(r);
        return r.Run(args.Length > 0 ? args[0] : "");
    }

    static CancellationTokenSource allocatorStop;
    static Task allocator;

    static string Need(string name)
    {
        string v = Environment.GetEnvironmentVariable(name);
        if (string.IsNullOrEmpty(v)) throw new Exception(name + " is not set: run the tests through csharp_test.go");
        return v;
    }

    static CupidClient Backend(string at = null)
    {
        return new CupidClient(at ?? url, new CupidOptions { ServerKey = key, Backoff = fast });
    }

    static CupidClient PlayerClient(string player, string at = null)
    {
        return new CupidClient(at ?? url, new CupidOptions { PlayerToken = Tokens.Sign(secret, player), Backoff = fast });
    }

    static string Id(string name)
    {
        return name + "-" + run;
    }

    static Player P(string name, double mmr)
    {
        return new Player(Id(name)) { Attributes = { ["mmr"] = mmr } };
    }

    static int Port(string at)
    {
        return new Uri(at).Port;
    }

    static void Add(Runner r)
    {
        r.Add("two players are matched", TwoPlayersMatched);
        r.Add("bulk create and cancel: a result per ticket", Bulk);
        r.Add("a refused ticket names its field", Refused);
        r.Add("attribute values keep their kinds", AttributeKinds);
        r.Add("credentials: none, another player's, one's own", Credentials);
        r.Add("an unknown ticket is not_found, watched too", Unknown);
        r.Add("a watch of an ended ticket returns its final event", EndedTicket);
        r.Add("a ticket watch ends when it is cancelled", WatchCancelled);
        r.Add("a watch gives up after Backoff.Attempts", WatchGivesUp);
        r.Add("a call past its timeout is deadline_exceeded", CallTimeout);
        r.Add("a rate limit's refusal carries Retry-After", RateLimited);
        r.Add("Replace takes a live ticket's place", Replace);
        r.Add("a ticket watch resumes after a dropped connection", WatchResumes);
        r.Add("the match stream resumes after a dropped connection", MatchesResume);
        r.Add("several streams and calls at once on one client", ManyStreams);
        r.Add("a refused match stream throws its code", RefusedStream);
        r.Add("ready check: players accept, the backend assigns", ReadyCheck);
        r.Add("ratings: report a result, read the ratings", Ratings);
        r.Add("examples: quick start", QuickStartExample);
        r.Add("examples: join a game with the allocator running", JoinGameExample);
        r.Add("examples: the allocator runs until it is stopped", AllocatorStops);
    }

    static async Task AllocatorStops()
    {
        Assert.True(!allocator.IsCompleted, "the allocator is still running: " + allocator.Exception);
        allocatorStop.Cancel();
        try
        {
            await allocator;
        }
        catch (OperationCanceledException)
        {
            return;
        }
        throw new AssertionFailed("the allocator ended without its cancellation");
    }

    static async Task TwoPlayersMatched()
    {
        using (var c = Backend())
        {
            var a = await c.CreateTicketAsync(new TicketRequest("quick", P("alice", 1500)));
            Assert.Equal(TicketState.Waiting, a.State, "alice's new ticket");
            Assert.True(a.CreatedAt.HasValue && a.ExpiresAt > a.CreatedAt, "alice's ticket expires after its creation: " + a.CreatedAt + " " + a.ExpiresAt);
            Assert.True(a.Waited.HasValue && a.Waited.Value >= TimeSpan.Zero, "alice's ticket has waited " + a.Waited);
            Assert.Equal(Id("alice"), a.Players[0].Id, "alice's ticket's player");
            var b = await c.CreateTicketAsync(new TicketRequest("quick", P("bob", 1540)));
            var ev = await c.WaitUntilMatchedAsync(a.Id);
            Assert.Equal(TicketEvent.Matched, ev.Kind, "alice's final event");
            var ids = ev.Match.Teams.SelectMany(t => t.TicketIds).OrderBy(x => x).ToList();
            Assert.Sequence(new[] { a.Id, b.Id }.OrderBy(x => x), ids, "the match's tickets");
            Assert.True(ev.Match.Quality.Score > 0 && ev.Match.Quality.Score <= 1, "quality " + ev.Match.Quality.Score + " in (0,1]");
            var got = await c.GetTicketAsync(b.Id);
            Assert.Equal(TicketState.Matched, got.State, "bob's ticket");
            Assert.Equal(ev.Match.Id, got.Match.Id, "bob's match");
        }
    }

    static async Task Bulk()
    {
        using (var c = Backend())
        {
            var results = await c.CreateTicketsAsync(new[]
            {
                new TicketRequest("quick", P("bulk0", 100)) { Version = Id("bulk-a") },
                new TicketRequest("quick", new Player("") { Attributes = { ["mmr"] = 100 } }) { Version = Id("bulk-a") },
                new TicketRequest("quick", P("bulk2", 2900)) { Version = Id("bulk-b") },
            });
            Assert.Equal(3, results.Count, "results");
            Assert.Equal(TicketState.Waiting, results[0].Ticket.State, "tickets[0]");
            Assert.True(results[0].Error == null, "tickets[0] has no error");
            Assert.True(results[1].Ticket == null, "tickets[1] has no ticket");
            Assert.Equal("invalid_argument", results[1].Error.Code, "tickets[1]'s code");
            Assert.Equal("tickets[1].players[0].id", results[1].Error.Field, "tickets[1]'s field");
            Assert.Equal(TicketState.Waiting, results[2].Ticket.State, "tickets[2]");

            var cancels = await c.CancelTicketsAsync(new[] { results[0].Ticket.Id, results[2].Ticket.Id, "no-such-ticket" });
            Assert.Equal(3, cancels.Count, "cancel results");
            Assert.Equal(TicketState.Cancelled, cancels[0].Ticket.State, "ids[0]");
            Assert.Equal(TicketState.Cancelled, cancels[1].Ticket.State, "ids[1]");
            Assert.Equal("not_found", cancels[2].Error.Code, "ids[2]'s code");
            Assert.True(cancels[2].Error.Field.StartsWith("ids[2]"), "ids[2]'s field is " + cancels[2].Error.Field);

            var again = await Assert.Refused("failed_precondition", () => c.CancelTicketAsync(results[0].Ticket.Id), "a second cancel");
            Assert.Equal(400, again.HttpStatus, "a second cancel's HTTP status (Connect gives failed_precondition 400)");
        }
    }

    static async Task Refused()
    {
        using (var c = Backend())
        {
            var missing = await Assert.Refused("invalid_argument",
                () => c.CreateTicketAsync(new TicketRequest("quick", new Player(Id("nommr")))), "a ticket without mmr");
            Assert.Equal("players[0].attributes.mmr", missing.Field, "its field");
            Assert.Equal(400, missing.HttpStatus, "its HTTP status");

            var text = await Assert.Refused("invalid_argument",
                () => c.CreateTicketAsync(new TicketRequest("quick", new Player(Id("textmmr")) { Attributes = { ["mmr"] = "high" } })), "mmr as text");
            Assert.Equal("players[0].attributes.mmr", text.Field, "its field");

            await Assert.Refused("not_found",
                () => c.CreateTicketAsync(new TicketRequest("no-such-queue", P("lost", 1))), "an unknown queue");

            var nan = await Assert.Refused("invalid_argument",
                () => c.CreateTicketAsync(new TicketRequest("quick", new Player(Id("nan")) { Attributes = { ["mmr"] = double.NaN } })), "NaN");
            Assert.Equal("players[0].attributes.mmr", nan.Field, "NaN's field");
            Assert.Equal(0, nan.HttpStatus, "NaN is refused before anything is sent");

            var fine = new TicketRequest("quick", P("fine", 1)) { Version = Id("fine") };
            var bulkNaN = await Assert.Refused("invalid_argument", () => c.CreateTicketsAsync(new[]
            {
                fine,
                new TicketRequest("quick", new Player(Id("inf")) { Attributes = { ["mmr"] = double.PositiveInfinity } }),
            }), "Infinity in a bulk call");
            Assert.Equal("tickets[1].players[0].attributes.mmr", bulkNaN.Field, "Infinity's field");
            var sent = await c.CreateTicketAsync(fine); // already_exists had the bulk call sent it
            await c.CancelTicketAsync(sent.Id);

            var t = await c.CreateTicketAsync(new TicketRequest("quick", P("twice", 10)) { Version = Id("twice") });
            var dup = await Assert.Refused("already_exists",
                () => c.CreateTicketAsync(new TicketRequest("quick", P("twice", 10)) { Version = Id("twice") }), "a second live ticket");
            Assert.Equal("players[0].id", dup.Field, "its field");
            Assert.True(dup.Message.Contains(t.Id), "the refusal names the live ticket: " + dup.Message);
            await c.CancelTicketAsync(t.Id);
        }
    }

    static async Task AttributeKinds()
    {
        using (var c = Backend())
        {
            var req = new TicketRequest("quick", new Player(Id("kinds"))
            {
                Attributes = { ["mmr"] = 1200L, ["name"] = "Zoë \"z\"", ["ranked"] = true, ["tags"] = new List<string> { "eu", "mic" } },
            })
            { Version = Id("kinds"), RequestId = Id("kinds-request") };
            req.Latencies["eu"] = 20;
            var t = await c.CreateTicketAsync(req);
            var got = (await c.GetTicketAsync(t.Id)).Players[0].Attributes;
            Assert.Equal(1200.0, (double)got["mmr"], "mmr");
            Assert.Equal("Zoë \"z\"", (string)got["name"], "name");
            Assert.Equal(true, (bool)got["ranked"], "ranked");
            Assert.Sequence(new object[] { "eu", "mic" }, (List<object>)got["tags"], "tags");
            Assert.Equal(20, t.Latencies["eu"], "latency to eu");
            var retry = await c.CreateTicketAsync(req);
            Assert.Equal(t.Id, retry.Id, "a retry with the same request id returns the first ticket");
            await c.CancelTicketAsync(t.Id);
        }
    }

    static async Task Credentials()
    {
        using (var anonymous = new CupidClient(url))
        using (var carol = PlayerClient(Id("carol")))
        using (var backend = Backend())
        {
            var none = await Assert.Refused("unauthenticated",
                () => anonymous.CreateTicketAsync(new TicketRequest("quick", P("carol", 1))), "no credentials");
            Assert.Equal(401, none.HttpStatus, "its HTTP status");
            await Assert.Refused("permission_denied",
                () => carol.CreateTicketAsync(new TicketRequest("quick", P("dave", 1))), "carol queueing dave");
            var own = await carol.CreateTicketAsync(new TicketRequest("quick", P("carol", 1)) { Version = Id("carol") });
            Assert.Equal(TicketState.Waiting, (await carol.GetTicketAsync(own.Id)).State, "carol reads her ticket");
            var other = await backend.CreateTicketAsync(new TicketRequest("quick", P("erin", 1)) { Version = Id("erin") });
            await Assert.Refused("permission_denied", () => carol.GetTicketAsync(other.Id), "carol reading erin's ticket");
            await Assert.Refused("permission_denied", () => carol.WatchTicketAsync(other.Id, 0, (Action<TicketEvent>)null), "carol watching erin's ticket");
            await Assert.Refused("permission_denied", () => carol.CancelTicketAsync(other.Id), "carol cancelling erin's ticket");
            await carol.CancelTicketAsync(own.Id);
            await backend.CancelTicketAsync(other.Id);
        }
    }

    static async Task Unknown()
    {
        using (var c = Backend())
        {
            var get = await Assert.Refused("not_found", () => c.GetTicketAsync("no-such-ticket"), "GetTicket");
            Assert.Equal(404, get.HttpStatus, "its HTTP status");
            await Assert.Refused("not_found", () => c.WaitUntilMatchedAsync("no-such-ticket"), "a watch");
            await Assert.Refused("not_found", () => c.GetMatchAsync("no-such-match"), "GetMatch");
        }
    }

    static async Task EndedTicket()
    {
        using (var c = Backend())
        {
            var t = await c.CreateTicketAsync(new TicketRequest("quick", P("ended", 1)) { Version = Id("ended") });
            await c.CancelTicketAsync(t.Id);
            var seen = new List<string>();
            var final = await c.WaitUntilMatchedAsync(t.Id, ev => { seen.Add(ev.Kind); return Task.FromResult(0); });
            Assert.Equal(TicketEvent.Cancelled, final.Kind, "the final event");
            Assert.Sequence(new[] { "created", "cancelled" }, seen, "the events seen");
            var after = await c.WatchTicketAsync(t.Id, final.Seq, ev => { throw new AssertionFailed("an event at or below after_seq was delivered: " + ev.Kind); });
            Assert.Equal(TicketEvent.Cancelled, after.Kind, "watching after the final event still returns it");
        }
    }

    static async Task WatchCancelled()
    {
        using (var c = Backend())
        using (var stop = new CancellationTokenSource())
        {
            var t = await c.CreateTicketAsync(new TicketRequest("quick", P("waiting", 1)) { Version = Id("waiting") });
            var watch = c.WatchTicketAsync(t.Id, 0, ev => { if (ev.Kind == TicketEvent.Created) stop.Cancel(); }, false, stop.Token);
            bool cancelled = false;
            try { await watch; }
            catch (OperationCanceledException) { cancelled = true; }
            Assert.True(cancelled, "the watch ends with the cancellation");
            Assert.Equal(TicketState.Waiting, (await c.GetTicketAsync(t.Id)).State, "the ticket still waits");
            await c.CancelTicketAsync(t.Id);
        }
    }

    static async Task WatchGivesUp()
    {
        using (var proxy = new Proxy(Port(url)))
        using (var c = new CupidClient(proxy.Url, new CupidOptions { ServerKey = key, Backoff = new Backoff { First = TimeSpan.FromMilliseconds(1), Max = TimeSpan.FromMilliseconds(5), Attempts = 3 } }))
        {
            var refused = proxy.Refuse();
            var e = await Assert.Refused("unavailable", () => c.WaitUntilMatchedAsync("any-ticket"), "a watch of a server out of reach");
            Assert.True(e.Message.Contains("gave up after 3 reconnections"), "the message says so: " + e.Message);
            Assert.True(refused.IsCompleted, "the proxy refused the watch");
        }
    }

    static async Task CallTimeout()
    {
        using (var proxy = new Proxy(Port(url)))
        using (var c = new CupidClient(proxy.Url, new CupidOptions { ServerKey = key, Timeout = TimeSpan.FromMilliseconds(300) }))
        {
            proxy.Stall();
            var e = await Assert.Refused("deadline_exceeded", () => c.GetTicketAsync("any-ticket"), "a call to a hung server");
            Assert.True(e.IsTransient, "a timeout is worth retrying");
        }
    }

    static async Task RateLimited()
    {
        using (var c = PlayerClient(Id("busy")))
        {
            // A player may make 10 calls a second, 40 at once (security.md).
            for (int i = 0; i < 400; i++)
            {
                try
                {
                    await c.GetPlayerRatingsAsync(Id("busy"));
                }
                catch (CupidException e)
                {
                    Assert.Equal("resource_exhausted", e.Code, "the refusal's code");
                    Assert.Equal(429, e.HttpStatus, "its HTTP status");
                    Assert.True(e.RetryAfter.HasValue && e.RetryAfter.Value > TimeSpan.Zero, "it says when to retry: " + e.RetryAfter);
                    Assert.True(i >= 40, "refused after " + i + " calls, within the burst of 40");
                    return;
                }
            }
            throw new AssertionFailed("400 calls at once were all served");
        }
    }

    static async Task Replace()
    {
        using (var c = Backend())
        {
            var version = Id("replace");
            var first = await c.CreateTicketAsync(new TicketRequest("quick", P("rep", 1)) { Version = version });
            var second = await c.CreateTicketAsync(new TicketRequest("quick", P("rep", 1)) { Version = version, Replace = true });
            Assert.True(second.Id != first.Id, "a new ticket");
            var old = await c.GetTicketAsync(first.Id);
            Assert.Equal(TicketState.Cancelled, old.State, "the replaced ticket");
            Assert.True(old.Reason.Contains(second.Id), "its reason names the new ticket: " + old.Reason);
            await c.CancelTicketAsync(second.Id);
        }
    }

    // WatchResumes cuts a player's ticket watch after its first event, keeps
    // the server out of reach while the ticket is matched and assigned, and
    // checks the watch reconnects after the event it saw: every event once,
    // in order.
    static async Task WatchResumes()
    {
        using (var proxy = new Proxy(Port(url)))
        using (var alice = PlayerClient(Id("wa"), proxy.Url))
        using (var backend = Backend())
        {
            var version = Id("resume");
            var a = await backend.CreateTicketAsync(new TicketRequest("quick", P("wa", 1500)) { Version = version });
            var events = new List<TicketEvent>();
            var created = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
            var watch = alice.WatchTicketAsync(a.Id, 0, ev =>
            {
                lock (events) events.Add(ev);
                if (ev.Kind == TicketEvent.Created) created.TrySetResult(true);
            }, waitForAssignment: true);
            await Either(created.Task, watch);

            var refused = proxy.Refuse(); // the connection drops; new ones are refused
            var b = await backend.CreateTicketAsync(new TicketRequest("quick", P("wb", 1520)) { Version = version });
            var matched = await backend.WaitUntilMatchedAsync(b.Id);
            Assert.Equal(TicketEvent.Matched, matched.Kind, "bob's final event");
            await backend.AssignMatchAsync(matched.Match.Id, new Assignment { Server = "10.1.2.3:7777", Connection = { ["token"] = "j0in" } });
            await refused; // the watch tried again while the server was out of reach
            proxy.Allow();

            var final = await watch;
            Assert.Equal(TicketEvent.Assigned, final.Kind, "the watch's final event");
            Assert.Equal("10.1.2.3:7777", final.Assignment.Server, "the assigned server");
            Assert.Equal("j0in", final.Assignment.Connection["token"], "the connection data");
            Assert.Sequence(new[] { "created", "matched", "assigned" }, events.Select(e => e.Kind), "the events delivered");
            Assert.True(events[0].Seq < events[1].Seq && events[1].Seq < events[2].Seq, "sequence numbers grow");
            var sockets = proxy.Requests.Where(x => x.StartsWith("GET /v1/tickets/")).ToList();
            Assert.True(sockets.Count >= 2, "the watch reconnected (" + sockets.Count + " sockets)");
            Assert.True(sockets[0].Contains("after_seq=0"), "the first socket starts at 0: " + FirstLine(sockets[0]));
            string resume = "after_seq=" + events[0].Seq;
            Assert.True(sockets.Last().Contains(resume), "the last socket resumes with " + resume + ": " + FirstLine(sockets.Last()));
            Assert.True(sockets.Last().Contains("Authorization: Bearer "), "the socket carries the player token");
        }
    }

    // MatchesResume does the same to a backend's match stream.
    static async Task MatchesResume()
    {
        using (var proxy = new Proxy(Port(url)))
        using (var watcher = Backend(proxy.Url))
        using (var backend = Backend())
        using (var stop = new CancellationTokenSource())
        {
            var version = Id("matches");
            var a = await backend.CreateTicketAsync(new TicketRequest("quick", P("ma", 1500)) { Version = version });
            var b = await backend.CreateTicketAsync(new TicketRequest("quick", P("mb", 1500)) { Version = version });
            var seqs = new List<long>();
            var ours = new List<MatchEvent>();
            var formed = new TaskCompletionSource<MatchEvent>(TaskCreationOptions.RunContinuationsAsynchronously);
            var assigned = new TaskCompletionSource<MatchEvent>(TaskCreationOptions.RunContinuationsAsynchronously);
            var watch = watcher.WatchMatchesAsync("quick", 0, ev =>
            {
                seqs.Add(ev.Seq);
                if (!ev.Match.Teams.Any(t => t.TicketIds.Contains(a.Id))) return;
                ours.Add(ev);
                if (ev.Kind == MatchEvent.Formed) formed.TrySetResult(ev);
                if (ev.Kind == MatchEvent.Assigned) assigned.TrySetResult(ev);
            }, stop.Token);
            var f = await Either(formed.Task, watch);
            Assert.True(f.Match.Teams.Any(t => t.TicketIds.Contains(b.Id)), "bob is in the match formed");

            var refused = proxy.Refuse();
            await backend.AssignMatchAsync(f.Match.Id, new Assignment { Server = "10.9.9.9:1", SessionId = "m-" + run });
            await refused;
            proxy.Allow();
            var asg = await Either(assigned.Task, watch);
            Assert.Equal("10.9.9.9:1", asg.Assignment.Server, "the assignment heard");
            stop.Cancel();
            bool cancelled = false;
            try { await watch; }
            catch (OperationCanceledException) { cancelled = true; }
            Assert.True(cancelled, "the stream ends with the cancellation");

            Assert.Sequence(new[] { "formed", "assigned" }, ours.Select(e => e.Kind), "our match's events");
            for (int i = 1; i < seqs.Count; i++) Assert.True(seqs[i - 1] < seqs[i], "sequence numbers grow: " + string.Join(",", seqs));
            var streams = proxy.Requests.Where(x => x.StartsWith("POST /cupid.v1.MatchService/WatchMatches")).ToList();
            Assert.True(streams.Count >= 2, "the stream reconnected (" + streams.Count + " streams)");
            string resume = "\"afterSeq\":\"" + f.Seq + "\"";
            Assert.True(streams.Last().Contains(resume), "the last stream resumes with " + resume);
        }
    }

    // ManyStreams holds more streams open on one client than .NET
    // Framework's and mono's default of two connections per server, then
    // makes calls: every stream must hear the match the calls form.
    static async Task ManyStreams()
    {
        using (var c = Backend())
        using (var stop = new CancellationTokenSource())
        {
            var version = Id("many");
            var heard = new List<TaskCompletionSource<bool>>();
            var watches = new List<Task>();
            string aliceId = null;
            for (int i = 0; i < 6; i++)
            {
                var tcs = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
                heard.Add(tcs);
                watches.Add(c.WatchMatchesAsync("quick", 0, ev =>
                {
                    var id = Volatile.Read(ref aliceId);
                    if (id != null && ev.Match.Teams.Any(t => t.TicketIds.Contains(id))) tcs.TrySetResult(true);
                }, stop.Token));
            }
            var a = await c.CreateTicketAsync(new TicketRequest("quick", P("many-a", 10)) { Version = version });
            Volatile.Write(ref aliceId, a.Id);
            await c.CreateTicketAsync(new TicketRequest("quick", P("many-b", 10)) { Version = version });
            var all = Task.WhenAll(heard.Select(h => h.Task));
            var first = await Task.WhenAny(all, Task.WhenAny(watches));
            if (first != all) await await Task.WhenAny(watches); // a stream's error
            stop.Cancel();
            foreach (var w in watches)
            {
                try { await w; }
                catch (OperationCanceledException) { }
            }
        }
    }

    static async Task RefusedStream()
    {
        using (var backend = Backend())
        using (var player = PlayerClient(Id("lou")))
        {
            var unknown = await Assert.Refused("not_found", () => backend.WatchMatchesAsync("no-such-queue", 0, ev => { }), "an unknown queue");
            Assert.True(unknown.Message.Contains("no-such-queue"), "the refusal names the queue: " + unknown.Message);
            await Assert.Refused("permission_denied", () => player.WatchMatchesAsync("quick", 0, ev => { }), "a player's match stream");
        }
    }

    // ReadyCheck: both players get the proposal; answering for the other is
    // refused; both accept and hear where to play.
    static async Task ReadyCheck()
    {
        using (var frank = PlayerClient(Id("frank")))
        using (var gina = PlayerClient(Id("gina")))
        using (var backend = Backend())
        {
            var refusals = new List<string>();
            Func<CupidClient, string, string, Task<TicketEvent>> play = async (me, name, other) =>
            {
                var t = await me.CreateTicketAsync(new TicketRequest("duel", P(name, 2000)));
                return await me.WaitUntilAssignedAsync(t.Id, async ev =>
                {
                    if (ev.Kind != TicketEvent.Proposed) return;
                    Assert.True(ev.Match.AcceptBy.HasValue, "a proposal has its deadline");
                    var e = await Assert.Refused("permission_denied", () => me.AcceptMatchAsync(ev.Match.Id, false, Id(other)), "declining for " + other);
                    lock (refusals) refusals.Add(e.Code);
                    await me.AcceptMatchAsync(ev.Match.Id, true);
                });
            };
            var results = await Task.WhenAll(play(frank, "frank", "gina"), play(gina, "gina", "frank"));
            foreach (var ev in results)
            {
                Assert.Equal(TicketEvent.Assigned, ev.Kind, "the final event");
                Assert.Equal("10.0.0.7:7777", ev.Assignment.Server, "the allocator's server");
            }
            Assert.Equal(results[0].Match.Id, results[1].Match.Id, "one match");
            var m = await backend.GetMatchAsync(results[0].Match.Id);
            Assert.Equal(MatchState.Assigned, m.State, "the match's state");
            Assert.Equal(2, m.Accepted, "acceptances");
            Assert.Equal(2, refusals.Count, "refused answers for the other player");
        }
    }

    static async Task Ratings()
    {
        using (var c = Backend())
        using (var hal = PlayerClient(Id("hal")))
        {
            var skill = await Assert.Refused("invalid_argument",
                () => c.CreateTicketAsync(new TicketRequest("ranked", P("hal", 1500))), "a ranked ticket with its own mmr");
            Assert.Equal("players[0].attributes.mmr", skill.Field, "its field");

            var h = await c.CreateTicketAsync(new TicketRequest("ranked", new Player(Id("hal"))));
            await c.CreateTicketAsync(new TicketRequest("ranked", new Player(Id("ivy"))));
            var ev = await c.WaitUntilMatchedAsync(h.Id);
            Assert.Equal(TicketEvent.Matched, ev.Kind, "hal's final event");
            var result = new MatchResult(ev.Match.Id);
            result.TeamPlaces.AddRange(new[] { 1, 2 });
            await Assert.Refused("failed_precondition", () => c.ReportResultAsync(result), "a result of a match not played");
            await c.AssignMatchAsync(ev.Match.Id, new Assignment { Server = "10.0.0.8:7777" });

            var report = await c.ReportResultAsync(result);
            Assert.Equal("ranked-1v1", report.Rating, "the rating");
            Assert.Equal(false, report.Repeated, "a first report");
            Assert.Equal(2, report.Changes.Count, "changes");
            string winner = ev.Match.Teams[0].PlayerIds[0];
            var win = report.Changes.Single(x => x.PlayerId == winner);
            var loss = report.Changes.Single(x => x.PlayerId != winner);
            Assert.True(win.After > win.Before, "the winner rises: " + win.Before + " -> " + win.After);
            Assert.True(loss.After < loss.Before, "the loser falls: " + loss.Before + " -> " + loss.After);
            var again = await c.ReportResultAsync(result);
            Assert.Equal(true, again.Repeated, "the same report again");

            var ratings = await c.GetPlayerRatingsAsync(winner);
            var r = ratings.Ratings.Single(x => x.Rating == "ranked-1v1");
            Assert.Equal(1, r.Games, "games");
            Assert.Equal(1, r.Wins, "wins");
            Assert.Equal(win.After, r.Value, "the value is the report's");
            var own = await hal.GetPlayerRatingsAsync(Id("hal"));
            Assert.Equal(Id("hal"), own.PlayerId, "hal reads his own ratings");
            await Assert.Refused("permission_denied", () => hal.GetPlayerRatingsAsync(Id("ivy")), "hal reading ivy's ratings");
        }
    }

    static async Task QuickStartExample()
    {
        var saved = Console.Out;
        var captured = new StringWriter();
        Console.SetOut(captured);
        try
        {
            await QuickStart.RunAsync(demoUrl);
        }
        finally
        {
            Console.SetOut(saved);
        }
        string line = captured.ToString().Trim();
        Console.WriteLine("quick start printed: " + line);
        Assert.True(line == "matched: alice vs bob" || line == "matched: bob vs alice", "the quick start printed " + line);
    }

    static async Task JoinGameExample()
    {
        var results = await Task.WhenAll(
            JoinGame.RunAsync(url, Tokens.Sign(secret, Id("jo")), Id("jo"), 1700),
            JoinGame.RunAsync(url, Tokens.Sign(secret, Id("kim")), Id("kim"), 1710));
        Assert.Equal("10.0.0.7:7777", results[0].Server, "jo's server");
        Assert.Equal(results[0].SessionId, results[1].SessionId, "one session for both");
        Assert.True(results[0].SessionId.StartsWith("s-"), "the allocator's session id " + results[0].SessionId);
    }

    // Either waits for want, failing at once if other (a watch that should go
    // on) ends first.
    static async Task<T> Either<T>(Task<T> want, Task other)
    {
        var first = await Task.WhenAny(want, other);
        if (first == other)
        {
            await other; // its exception
            throw new AssertionFailed("the watch ended early");
        }
        return await want;
    }

    static string FirstLine(string s)
    {
        int i = s.IndexOf('\r');
        return i < 0 ? s : s.Substring(0, i);
    }
}
