package api

import (
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	cupid "github.com/cupid-match/cupid"
)

// Limits bound what one client can hold of the server: how long it may
// take to send a request, how long a call may take to answer, how large a
// request may be and how many watchers it may open. A zero field takes
// its default (DefaultLimits).
type Limits struct {
	// ReadTimeout bounds the reading of one request's body, from the end
	// of its headers. A client that sends its body slowly (or not at all)
	// is cut off after it.
	ReadTimeout time.Duration
	// WriteTimeout bounds a unary call, from the end of its headers to the
	// last byte of its answer. Streams (WatchTicket, WatchEvent) and
	// WebSockets live as long as they are watched: they have none.
	WriteTimeout time.Duration
	// MaxRequestBytes bounds a request body (a Connect message).
	MaxRequestBytes int
	// MaxWatchersPerTicket bounds the open watches (WatchTicket streams
	// and WebSockets) of one ticket; one more is refused with
	// resource_exhausted.
	MaxWatchersPerTicket int
	// MaxWatchers bounds the open ticket watches of the whole server.
	MaxWatchers int
}

// DefaultLimits are the limits a server has when not told otherwise.
var DefaultLimits = Limits{
	ReadTimeout:          30 * time.Second,
	WriteTimeout:         30 * time.Second,
	MaxRequestBytes:      MaxRequestBytes,
	MaxWatchersPerTicket: 2 * cupid.MaxPlayersPerTicket,
	MaxWatchers:          100_000,
}

// orDefault fills the zero fields from DefaultLimits.
func (l Limits) orDefault() Limits {
	d := DefaultLimits
	if l.ReadTimeout > 0 {
		d.ReadTimeout = l.ReadTimeout
	}
	if l.WriteTimeout > 0 {
		d.WriteTimeout = l.WriteTimeout
	}
	if l.MaxRequestBytes > 0 {
		d.MaxRequestBytes = l.MaxRequestBytes
	}
	if l.MaxWatchersPerTicket > 0 {
		d.MaxWatchersPerTicket = l.MaxWatchersPerTicket
	}
	if l.MaxWatchers > 0 {
		d.MaxWatchers = l.MaxWatchers
	}
	return d
}

// withDeadlines gives each request its own read and write deadlines, in
// place of the server-wide ReadTimeout and WriteTimeout of http.Server,
// which would cut the long-lived streams and WebSockets: the body must
// arrive within ReadTimeout (the deadline is lifted once it has, so the
// connection's watch for a closing client does not end a slow call), and a
// unary call must be answered within WriteTimeout. A stream's or a
// WebSocket's deadline is cleared, as one left by an earlier request on the
// same connection would cut it.
func withDeadlines(h http.Handler, l Limits) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		now := time.Now()
		long := isLongLived(r)
		if isUpgrade(r) {
			// Headers are read and there is no body: the socket's reads
			// are the WebSocket library's, with its own pings.
			_ = rc.SetReadDeadline(time.Time{})
		} else if r.Body != nil && r.Body != http.NoBody {
			_ = rc.SetReadDeadline(now.Add(l.ReadTimeout))
			b := &liftOnEOF{ReadCloser: r.Body, rc: rc}
			if r.ProtoMajor == 1 {
				b.header = w.Header()
			}
			r.Body = b
		} else {
			_ = rc.SetReadDeadline(time.Time{})
		}
		if long {
			_ = rc.SetWriteDeadline(time.Time{})
		} else {
			_ = rc.SetWriteDeadline(now.Add(l.WriteTimeout))
		}
		h.ServeHTTP(w, r)
	})
}

// liftOnEOF clears the read deadline once the body is read whole. On
// HTTP/1, a body that fails part way (its deadline passed) makes the answer
// close the connection: what remains of the body on the wire must not be
// read as the next request, and net/http cannot tell through the wrapper.
type liftOnEOF struct {
	io.ReadCloser
	rc     *http.ResponseController
	header http.Header // HTTP/1 only
	done   bool
}

func (b *liftOnEOF) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	switch {
	case err == nil || b.done:
	case err == io.EOF:
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	default:
		b.done = true
		if b.header != nil {
			b.header.Set("Connection", "close")
		}
	}
	return n, err
}

// isUpgrade reports a WebSocket upgrade.
func isUpgrade(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// isLongLived reports a request that may stay open as long as its client
// wants: a WebSocket, or a call of a streaming procedure (found in the
// schema, so a new stream is known without a list to keep).
func isLongLived(r *http.Request) bool {
	if isUpgrade(r) {
		return true
	}
	return streamingProcedure(r.URL.Path)
}

var streamingCache sync.Map // path → bool

func streamingProcedure(path string) bool {
	if v, ok := streamingCache.Load(path); ok {
		return v.(bool)
	}
	name := strings.ReplaceAll(strings.TrimPrefix(path, "/"), "/", ".")
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(name))
	if err != nil {
		return false // not a procedure: not cached, so paths cannot grow the map
	}
	md, ok := d.(protoreflect.MethodDescriptor)
	streaming := ok && (md.IsStreamingServer() || md.IsStreamingClient())
	streamingCache.Store(path, streaming)
	return streaming
}

// watchLimiter counts open ticket watches, per ticket and in all.
type watchLimiter struct {
	perTicket, total int
	mu               sync.Mutex
	open             map[string]int
	all              int
}

func newWatchLimiter(l Limits) *watchLimiter {
	return &watchLimiter{perTicket: l.MaxWatchersPerTicket, total: l.MaxWatchers, open: map[string]int{}}
}

// acquire counts one more watch of ticket id, or refuses it with
// resource_exhausted; release must be called when the watch ends.
func (w *watchLimiter) acquire(id string) (release func(), err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.all >= w.total {
		return nil, cupid.Errorf(cupid.CodeExhausted, "", "the server has %d ticket watchers open, its limit; try again later", w.all)
	}
	if w.open[id] >= w.perTicket {
		return nil, cupid.Errorf(cupid.CodeExhausted, "id", "ticket %s has %d watchers open, its limit", id, w.open[id])
	}
	w.open[id]++
	w.all++
	var once sync.Once
	return func() {
		once.Do(func() {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.all--
			if w.open[id]--; w.open[id] <= 0 {
				delete(w.open, id)
			}
		})
	}, nil
}

// LimitListener caps the connections a listener has open at once, and
// those of one client address at perAddr, so that one client cannot take
// every slot (and /healthz away from everyone). A connection past either
// cap is accepted and closed at once (after a plain "503 too many
// connections" when refusal is set, for HTTP/1 clients on a cleartext
// port), so it neither waits in the kernel's queue nor holds a goroutine.
// Refused counts them.
func LimitListener(ln net.Listener, max, perAddr int, refusal bool) *LimitedListener {
	return &LimitedListener{Listener: ln, slots: make(chan struct{}, max), perAddr: perAddr, refusal: refusal, byAddr: map[string]int{}}
}

// LimitedListener is a listener with a cap on open connections, in all and
// per client address.
type LimitedListener struct {
	net.Listener
	slots   chan struct{}
	perAddr int
	refusal bool
	refused atomic.Int64

	mu     sync.Mutex
	byAddr map[string]int // open connections by client IP
}

// Refused is the number of connections refused so far.
func (l *LimitedListener) Refused() int64 { return l.refused.Load() }

// Open is the number of connections open now.
func (l *LimitedListener) Open() int { return len(l.slots) }

var tooManyConnections = []byte("HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n" +
	"Connection: close\r\nContent-Length: 21\r\n\r\ntoo many connections\n")

// Accept returns the next connection within the caps.
func (l *LimitedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		addr := clientIP(c)
		if l.take(addr) {
			select {
			case l.slots <- struct{}{}:
				return &limitedConn{Conn: c, l: l, addr: addr}, nil
			default:
				l.give(addr)
			}
		}
		l.refused.Add(1)
		if l.refusal {
			_ = c.SetWriteDeadline(time.Now().Add(time.Second))
			_, _ = c.Write(tooManyConnections)
		}
		_ = c.Close()
	}
}

// take counts a connection of addr, unless addr has its share open.
func (l *LimitedListener) take(addr string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.perAddr > 0 && l.byAddr[addr] >= l.perAddr {
		return false
	}
	l.byAddr[addr]++
	return true
}

// give forgets a connection of addr.
func (l *LimitedListener) give(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byAddr[addr]--; l.byAddr[addr] <= 0 {
		delete(l.byAddr, addr)
	}
}

// clientIP is the address a connection comes from, without its port.
func clientIP(c net.Conn) string {
	a := c.RemoteAddr().String()
	if host, _, err := net.SplitHostPort(a); err == nil {
		return host
	}
	return a
}

type limitedConn struct {
	net.Conn
	l    *LimitedListener
	addr string
	once sync.Once
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		<-c.l.slots
		c.l.give(c.addr)
	})
	return err
}

// CloseWrite keeps the half-close http.Server uses on a TCP connection.
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
