using System.Threading;
using System.Threading.Tasks;
using Cupid;

public static class Allocator
{
    // A game backend follows the duel queue's matches and gives each one a game server.
    public static async Task RunAsync(string server, string serverKey, CancellationToken stop)
    {
        using (var cupid = new CupidClient(server, new CupidOptions { ServerKey = serverKey }))
        {
            long lastSeq = 0; // keep it with your own state, and start from it after a restart
            await cupid.WatchMatchesAsync("duel", lastSeq, async ev =>
            {
                if (ev.Kind == MatchEvent.Formed)
                {
                    string address = "10.0.0.7:7777"; // start or pick a game server here
                    try
                    {
                        await cupid.AssignMatchAsync(ev.Match.Id, new Assignment { Server = address, SessionId = "s-" + ev.Seq });
                    }
                    catch (CupidException e) when (e.Code == "failed_precondition")
                    {
                        // assigned before lastSeq was saved: nothing to do
                    }
                }
                lastSeq = ev.Seq;
            }, stop);
        }
    }
}
