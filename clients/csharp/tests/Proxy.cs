using System;
using System.Collections.Generic;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

// Proxy is a TCP relay between the client and the server that the tests
// can cut: Refuse closes every connection through it and then new ones at
// once, as a server that is down would, and Stall holds them unanswered. It
// records the start of what each relayed connection sent (the HTTP request
// line and headers, and a Connect stream's request body) so a test can see
// where a reconnecting watch resumed.
sealed class Proxy : IDisposable
{
    readonly TcpListener listener;
    readonly int target;
    readonly object mu = new object();
    readonly List<TcpClient> live = new List<TcpClient>();
    readonly List<StringBuilder> requests = new List<StringBuilder>();
    TaskCompletionSource<bool> refused = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
    volatile bool refusing;
    volatile bool stalling;
    volatile bool closed;

    public Proxy(int targetPort)
    {
        target = targetPort;
        listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        Task.Run(() => AcceptLoop());
    }

    public string Url
    {
        get { return "http://127.0.0.1:" + ((IPEndPoint)listener.LocalEndpoint).Port; }
    }

    // Requests are what each relayed connection sent first, in order.
    public List<string> Requests
    {
        get
        {
            lock (mu)
            {
                var res = new List<string>();
                foreach (var r in requests) res.Add(r.ToString());
                return res;
            }
        }
    }

    // Refuse closes every connection and refuses new ones until Allow; the
    // task it returns completes when a connection has been refused.
    public Task Refuse()
    {
        lock (mu)
        {
            refused = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
            refusing = true;
            foreach (var c in live) c.Close();
            live.Clear();
            return refused.Task;
        }
    }

    public void Allow()
    {
        refusing = false;
    }

    // Stall keeps new connections open without relaying anything, as a
    // server that hangs would.
    public void Stall()
    {
        stalling = true;
    }

    async Task AcceptLoop()
    {
        while (!closed)
        {
            TcpClient down;
            try
            {
                down = await listener.AcceptTcpClientAsync();
            }
            catch (Exception)
            {
                return; // closed
            }
            if (refusing)
            {
                down.Close();
                lock (mu) refused.TrySetResult(true);
                continue;
            }
            if (stalling)
            {
                lock (mu) live.Add(down);
                continue;
            }
            var up = new TcpClient();
            try
            {
                await up.ConnectAsync(IPAddress.Loopback, target);
            }
            catch (Exception)
            {
                down.Close();
                continue;
            }
            var seen = new StringBuilder();
            lock (mu)
            {
                live.Add(down);
                live.Add(up);
                requests.Add(seen);
            }
            _ = Pump(down, up, seen); // each pump closes both sides when it ends
            _ = Pump(up, down, null);
        }
    }

    // Pump copies one direction until either side closes, then closes both.
    async Task Pump(TcpClient from, TcpClient to, StringBuilder seen)
    {
        var buf = new byte[16 << 10];
        try
        {
            var src = from.GetStream();
            var dst = to.GetStream();
            while (true)
            {
                int n = await src.ReadAsync(buf, 0, buf.Length);
                if (n == 0) break;
                if (seen != null)
                {
                    lock (mu)
                    {
                        if (seen.Length < 8192) seen.Append(Encoding.UTF8.GetString(buf, 0, n));
                    }
                }
                await dst.WriteAsync(buf, 0, n);
            }
        }
        catch (Exception)
        {
            // a side closed
        }
        from.Close();
        to.Close();
    }

    public void Dispose()
    {
        closed = true;
        listener.Stop();
        lock (mu)
        {
            foreach (var c in live) c.Close();
            live.Clear();
        }
    }
}
