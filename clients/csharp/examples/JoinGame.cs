using System;
using System.Threading.Tasks;
using Cupid;

public static class JoinGame
{
    // A game client queues its player and waits for the game server to play on,
    // answering the queue's ready check ("match found: accept?") on the way.
    public static async Task<Assignment> RunAsync(string server, string playerToken, string playerId, double mmr)
    {
        using (var cupid = new CupidClient(server, new CupidOptions { PlayerToken = playerToken }))
        {
            Ticket ticket = await cupid.CreateTicketAsync(
                new TicketRequest("duel", new Player(playerId) { Attributes = { ["mmr"] = mmr } }));

            TicketEvent last = await cupid.WaitUntilAssignedAsync(ticket.Id, async ev =>
            {
                if (ev.Kind == TicketEvent.Proposed)
                    await cupid.AcceptMatchAsync(ev.Match.Id, true); // show the dialog; this player always accepts
            });
            if (last.Kind != TicketEvent.Assigned)
                throw new Exception("no game: the ticket was " + last.Kind + " (" + last.Reason + ")");
            return last.Assignment; // connect to last.Assignment.Server
        }
    }
}
