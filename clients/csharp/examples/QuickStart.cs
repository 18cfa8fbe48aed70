using System;
using System.Linq;
using System.Threading.Tasks;
using Cupid;

public static class QuickStart
{
    // Two players queue in the demo's duel queue, and alice waits for her match.
    public static async Task RunAsync(string server)
    {
        using (var cupid = new CupidClient(server))
        {
            Ticket alice = await cupid.CreateTicketAsync(
                new TicketRequest("duel", new Player("alice") { Attributes = { ["mmr"] = 1500 } }));
            await cupid.CreateTicketAsync(
                new TicketRequest("duel", new Player("bob") { Attributes = { ["mmr"] = 1540 } }));

            TicketEvent ev = await cupid.WaitUntilMatchedAsync(alice.Id);
            Console.WriteLine(ev.Kind + ": " + string.Join(" vs ", ev.Match.Teams.Select(t => string.Join(", ", t.PlayerIds))));
        }
    }
}
