package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// clusterSchema is the migration that lets several nodes share the
// database. PostgreSQL is the one source of truth and coordination: nodes
// announce themselves in cluster_nodes, take pools through cluster_leases,
// and hear of each other's writes through notifications.
//
//   - Times here are the database's clock (clock_timestamp()), never a
//     node's: two nodes whose clocks disagree still agree on who holds a
//     lease and whether it has lapsed.
//   - A lease's token grows by one whenever it changes hands or is taken
//     again after lapsing. cupid_fence checks, as the last statement before
//     the COMMIT of a transaction that writes for a pool (in the batch that
//     commits, where the transaction has one), that the writer still holds
//     the lease with the token it was given, and takes the lease row FOR
//     SHARE: a node taking the lease over must update that row, so it waits
//     for that commit and then reads what it wrote with the pool's other
//     tickets. A writer whose lease lapsed or moved fails with SQLSTATE
//     CF001 and writes nothing. The row is held only while a commit runs,
//     never while the server waits for a client; a fenced transaction left
//     idle for two seconds is ended by the server, and lease changes wait at
//     most a quarter second for the row (ErrLeaseBusy), so a writer stopped
//     mid-transaction delays a takeover by seconds, not for as long as it
//     sleeps.
//   - Every statement that stores ticket events or match events notifies
//     a channel named for the schema ("cupid_" and 16 hex digits of its
//     md5, so that deployments in two schemas of one database do not hear
//     each other and no schema name is too long for a channel), from a
//     trigger, so that no path that writes
//     events (today's or a later one) can forget to. The payload is
//     "t:" and the new sequence numbers as ranges ("t:41-44,47"), or "m:",
//     the range of a queue's new match events, their kinds and the queue
//     ("m:12-13:assigned,formed:duel"), or "r:" and a queue whose ruleset was replaced at
//     run time (kind "ruleset" in documents), so every node checks tickets
//     against the new one. Notifications are delivered after
//     commit, in commit order, to every listening node; a ticket's own
//     events commit one after another, so a node that reads each
//     notification's events in turn sees every ticket's events in sequence
//     order. A payload stays under PostgreSQL's 8,000-byte limit by being
//     split.
const clusterSchema = `
CREATE TABLE cluster_nodes (
	id         text COLLATE "C" PRIMARY KEY,
	addr       text COLLATE "C" NOT NULL DEFAULT '',
	started_at timestamptz NOT NULL,
	seen_at    timestamptz NOT NULL
);
CREATE TABLE cluster_leases (
	name       text COLLATE "C" PRIMARY KEY,
	owner      text COLLATE "C" NOT NULL,
	token      bigint NOT NULL,
	expires_at timestamptz NOT NULL
);

CREATE FUNCTION cupid_fence(lease text, holder text, tok bigint) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
	-- A writer that stops between two statements of this transaction (a
	-- paused process) would hold the lease row, and so a takeover, until
	-- the server noticed: end such a transaction after two seconds idle.
	PERFORM set_config('idle_in_transaction_session_timeout', '2s', true);
	PERFORM 1 FROM cluster_leases
	WHERE name = lease AND owner = holder AND token = tok AND expires_at > clock_timestamp()
	FOR SHARE;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'cupid: lease % is no longer held by % with token %', lease, holder, tok USING ERRCODE = 'CF001';
	END IF;
	RETURN true;
END
$$;

CREATE FUNCTION cupid_notify_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	msg text := '';
	r record;
BEGIN
	FOR r IN
		SELECT min(seq) AS lo, max(seq) AS hi FROM (
			SELECT seq, seq - row_number() OVER (ORDER BY seq) AS run FROM new_rows
		) AS s GROUP BY run ORDER BY 1
	LOOP
		IF length(msg) > 7900 THEN
			PERFORM pg_notify('cupid_' || left(md5(TG_TABLE_SCHEMA), 16), 't:' || msg);
			msg := '';
		END IF;
		IF msg <> '' THEN
			msg := msg || ',';
		END IF;
		IF r.lo = r.hi THEN
			msg := msg || r.lo;
		ELSE
			msg := msg || r.lo || '-' || r.hi;
		END IF;
	END LOOP;
	IF msg <> '' THEN
		PERFORM pg_notify('cupid_' || left(md5(TG_TABLE_SCHEMA), 16), 't:' || msg);
	END IF;
	RETURN NULL;
END
$$;
CREATE TRIGGER events_notify AFTER INSERT ON events
	REFERENCING NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION cupid_notify_events();

CREATE FUNCTION cupid_notify_match_events() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT queue, min(seq) AS lo, max(seq) AS hi, string_agg(DISTINCT kind, ',' ORDER BY kind) AS kinds
		FROM new_rows GROUP BY queue ORDER BY 1
	LOOP
		PERFORM pg_notify('cupid_' || left(md5(TG_TABLE_SCHEMA), 16), 'm:' || r.lo || '-' || r.hi || ':' || r.kinds || ':' || r.queue);
	END LOOP;
	RETURN NULL;
END
$$;
CREATE FUNCTION cupid_notify_ruleset() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('cupid_' || left(md5(TG_TABLE_SCHEMA), 16), 'r:' || NEW.id);
	RETURN NULL;
END
$$;
CREATE TRIGGER ruleset_notify AFTER INSERT OR UPDATE ON documents
	FOR EACH ROW WHEN (NEW.kind = 'ruleset') EXECUTE FUNCTION cupid_notify_ruleset();

CREATE TRIGGER match_events_notify AFTER INSERT ON match_events
	REFERENCING NEW TABLE AS new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION cupid_notify_match_events();
`

// codeFenced is the SQLSTATE cupid_fence raises.
const codeFenced = "CF001"

// fenceSQL checks a write's fence inside its transaction.
const fenceSQL = `SELECT cupid_fence($1, $2, $3)`

// A fenced transaction checks its fence as its last statement before
// COMMIT, in the batch that commits where it can: the lease row is then
// held (FOR SHARE) only while the commit itself runs, never while the
// server waits for a client that may have stopped. From its first
// statement such a transaction is ended by the server after two seconds
// idle, so a writer stopped between two of its round trips releases its
// ticket and match rows within seconds.

// fenceIdleSQL bounds a fenced transaction's idle time.
const fenceIdleSQL = `SELECT set_config('idle_in_transaction_session_timeout', '2s', true)`

// queueFenceBegin starts the fenced part of a batch that began its
// transaction, when there is a fence.
func queueFenceBegin(f cupid.Fence, b *pgx.Batch) {
	if f.Lease != "" {
		b.Queue(fenceIdleSQL)
	}
}

// queueFence adds the check of the fence, if any, to a batch; the COMMIT
// follows it.
func queueFence(f cupid.Fence, b *pgx.Batch) {
	if f.Lease != "" {
		b.Queue(fenceSQL, f.Lease, f.Holder, f.Token)
	}
}

// execFenced runs one statement: alone, or after the check of the fence
// in a transaction of their own (a pairing event's writes on a node of
// several).
func (s *Store) execFenced(ctx context.Context, f cupid.Fence, sql string, args ...any) error {
	if f.Lease == "" {
		_, err := s.pool.Exec(ctx, sql, args...)
		return err
	}
	return s.inTx(ctx, func(conn *pgxpool.Conn) error {
		b := &pgx.Batch{}
		queueBegin(b)
		queueFenceBegin(f, b)
		b.Queue(sql, args...)
		queueFence(f, b)
		b.Queue(commitSQL)
		return fenced(send(ctx, conn, b))
	})
}

// fenced turns the database's refusal of a fenced write into an error that
// is cupid.ErrFenced.
func fenced(err error) error {
	if err != nil && pgCode(err) == codeFenced {
		return fmt.Errorf("%w: %v", cupid.ErrFenced, err)
	}
	return err
}

// Node is one server process of a cluster, as the database last saw it.
type Node struct {
	ID   string
	Addr string
	// Started and Seen are the database's clock when the node first and
	// last announced itself.
	Started, Seen time.Time
}

// Heartbeat announces a node (with the address it serves on, for people
// reading the list) as alive now.
func (s *Store) Heartbeat(ctx context.Context, node, addr string) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO cluster_nodes (id, addr, started_at, seen_at)
		VALUES ($1, $2, clock_timestamp(), clock_timestamp())
		ON CONFLICT (id) DO UPDATE SET addr = EXCLUDED.addr, seen_at = EXCLUDED.seen_at`, node, addr)
	if err != nil {
		return fmt.Errorf("postgres: heartbeat of node %s: %w", node, err)
	}
	return nil
}

// LeaveCluster removes a node that stops cleanly, so the others need not
// wait for its heartbeat to age.
func (s *Store) LeaveCluster(ctx context.Context, node string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM cluster_nodes WHERE id = $1`, node)
	if err != nil {
		return fmt.Errorf("postgres: node %s leaving: %w", node, err)
	}
	return nil
}

// Nodes lists the nodes seen within the last `within`, in id order, and
// forgets those not seen for an hour.
func (s *Store) Nodes(ctx context.Context, within time.Duration) ([]Node, error) {
	if _, err := s.pool.Exec(ctx, `DELETE FROM cluster_nodes WHERE seen_at < clock_timestamp() - interval '1 hour'`); err != nil {
		return nil, fmt.Errorf("postgres: forget old nodes: %w", err)
	}
	rows, err := s.pool.Query(ctx, `SELECT id, addr, started_at, seen_at FROM cluster_nodes
		WHERE seen_at > clock_timestamp() - make_interval(secs => $1) ORDER BY id`, within.Seconds())
	if err != nil {
		return nil, fmt.Errorf("postgres: list nodes: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Node, error) {
		var n Node
		err := r.Scan(&n.ID, &n.Addr, &n.Started, &n.Seen)
		return n, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: list nodes: %w", err)
	}
	return out, nil
}

// Lease is who holds a lease, with which token, until when (the database's
// clock).
type Lease struct {
	Name    string
	Owner   string
	Token   int64
	Expires time.Time
}

// AcquireLease takes the lease for node for ttl, or extends it when node
// holds it still. It returns the token the node's writes must carry, and
// ok false (no error) when another node holds the lease. The token stays
// the same while a node keeps extending its lease in time, and grows when
// the lease changes hands or is taken again after it lapsed: a node whose
// lease lapsed must act on the new token only.
func (s *Store) AcquireLease(ctx context.Context, name, node string, ttl time.Duration) (token int64, ok bool, err error) {
	if ttl <= 0 {
		return 0, false, cupid.Invalid("ttl", "must be positive")
	}
	err = s.leaseTx(ctx, func(b *pgx.Batch) {
		b.Queue(`INSERT INTO cluster_leases AS l (name, owner, token, expires_at)
		VALUES ($1, $2, 1, clock_timestamp() + make_interval(secs => $3))
		ON CONFLICT (name) DO UPDATE SET
			owner = EXCLUDED.owner,
			token = CASE WHEN l.owner = EXCLUDED.owner AND l.expires_at > clock_timestamp() THEN l.token ELSE l.token + 1 END,
			expires_at = EXCLUDED.expires_at
		WHERE l.owner = EXCLUDED.owner OR l.expires_at <= clock_timestamp()
		RETURNING token`, name, node, ttl.Seconds()).QueryRow(func(r pgx.Row) error { return r.Scan(&token) })
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("postgres: acquire lease %s for %s: %w", name, node, err)
	}
	return token, true, nil
}

// ReleaseLease gives a lease up at once, so that the next node need not
// wait for it to lapse. It keeps the token, so the next holder's is larger.
// Releasing a lease the node no longer holds with that token does nothing.
func (s *Store) ReleaseLease(ctx context.Context, name, node string, token int64) error {
	err := s.leaseTx(ctx, func(b *pgx.Batch) {
		b.Queue(`UPDATE cluster_leases SET expires_at = clock_timestamp() - interval '1 millisecond'
		WHERE name = $1 AND owner = $2 AND token = $3`, name, node, token)
	})
	if err != nil {
		return fmt.Errorf("postgres: release lease %s: %w", name, err)
	}
	return nil
}

// ErrLeaseBusy is the answer of AcquireLease and ReleaseLease when a write
// made under the lease holds its row (cupid_fence takes it FOR SHARE) for
// longer than leaseLockWait: the caller tries again at its next round rather
// than wait, so one write of a node that stopped mid-transaction cannot hold
// up the rounds of the others (such a transaction ends within
// two seconds, see cupid_fence).
var ErrLeaseBusy = errors.New("the lease row is held by a write in progress")

// leaseLockWait bounds how long a lease change waits for the row.
const leaseLockWait = "250ms"

// leaseTx runs the lease change f queues in a transaction sent whole, with
// its BEGIN and COMMIT, in one round trip: the server runs it to its end
// without waiting for this node, so a node stopped between its lease
// change and its commit (paused, cut off) cannot hold the lease row from
// the others. The change waits at most leaseLockWait for the row (a
// fenced write holding it), and, as a guard, the transaction may sit idle
// for no longer than a fenced one.
func (s *Store) leaseTx(ctx context.Context, f func(b *pgx.Batch)) error {
	return s.inTx(ctx, func(conn *pgxpool.Conn) error {
		b := &pgx.Batch{}
		b.Queue(`BEGIN ISOLATION LEVEL READ COMMITTED`)
		b.Queue(`SELECT set_config('lock_timeout', $1, true), set_config('idle_in_transaction_session_timeout', '2s', true)`, leaseLockWait)
		f(b)
		b.Queue(commitSQL)
		err := send(ctx, conn, b)
		if pgCode(err) == codeLockNotAvailable {
			return ErrLeaseBusy
		}
		return err
	})
}

// codeLockNotAvailable is SQLSTATE lock_not_available (lock_timeout).
const codeLockNotAvailable = "55P03"

// Leases lists every lease, lapsed ones included, in name order.
func (s *Store) Leases(ctx context.Context) ([]Lease, error) {
	rows, err := s.pool.Query(ctx, `SELECT name, owner, token, expires_at FROM cluster_leases ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("postgres: list leases: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Lease, error) {
		var l Lease
		err := r.Scan(&l.Name, &l.Owner, &l.Token, &l.Expires)
		return l, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: list leases: %w", err)
	}
	return out, nil
}

// Change is what one notification told: ticket events stored (by their
// sequence numbers) or a queue's match log grown. Resync is set on the
// first Change after the listening connection was lost and made again:
// notifications sent meanwhile were missed, and the listener must catch up
// by reading (each watched ticket's events after the last seen, each owned
// pool's waiting tickets).
type Change struct {
	Seqs []int64
	// Queue's match log grew by events of Kinds numbered From to To
	// (other queues' events may lie between).
	Queue    string
	From, To int64
	Kinds    []string
	// Ruleset names a queue whose ruleset was replaced at run time.
	Ruleset string
	Resync  bool
}

// Listen calls fn with every change any node commits, in commit order, until
// ctx ends. It holds one connection of its own; when it loses it, it
// connects again (retrying with a pause) and calls fn with Resync first.
// fn runs on Listen's goroutine: a slow fn delays the next notifications,
// which PostgreSQL queues meanwhile.
func (s *Store) Listen(ctx context.Context, ready func(), fn func(Change)) error {
	resync := false
	for attempt := 0; ; attempt++ {
		err := s.listenOnce(ctx, func() {
			attempt = 0
			if ready != nil {
				ready()
				ready = nil
			}
			if resync {
				fn(Change{Resync: true})
			}
		}, fn)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		resync = true
		_ = err
		if err := pause(ctx, min(attempt, 6)); err != nil {
			return err
		}
	}
}

func (s *Store) listenOnce(ctx context.Context, listening func(), fn func(Change)) error {
	// A connection of its own, outside the pool: it waits for as long as
	// the node runs, and would otherwise keep one of the pool's few
	// connections from the writes.
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var channel string
	if err := conn.QueryRow(ctx, `SELECT 'cupid_' || left(md5(current_schema()), 16)`).Scan(&channel); err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, `LISTEN `+pgx.Identifier{channel}.Sanitize()); err != nil {
		return err
	}
	listening()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		c, err := parseChange(n.Payload)
		if err != nil {
			continue // not ours (someone else notifying the channel)
		}
		fn(c)
	}
}

// parseChange reads a notification's payload.
func parseChange(p string) (Change, error) {
	switch {
	case strings.HasPrefix(p, "r:") && len(p) > 2:
		return Change{Ruleset: p[2:]}, nil
	case strings.HasPrefix(p, "m:"):
		parts := strings.SplitN(p[2:], ":", 3)
		if len(parts) != 3 || parts[1] == "" || parts[2] == "" {
			return Change{}, fmt.Errorf("bad payload %q", p)
		}
		lo, hi, ok := strings.Cut(parts[0], "-")
		a, err1 := strconv.ParseInt(lo, 10, 64)
		b, err2 := strconv.ParseInt(hi, 10, 64)
		if !ok || err1 != nil || err2 != nil || b < a {
			return Change{}, fmt.Errorf("bad payload %q", p)
		}
		return Change{Queue: parts[2], From: a, To: b, Kinds: strings.Split(parts[1], ",")}, nil
	case strings.HasPrefix(p, "t:"):
		var c Change
		for _, part := range strings.Split(p[2:], ",") {
			lo, hi, isRange := strings.Cut(part, "-")
			a, err := strconv.ParseInt(lo, 10, 64)
			if err != nil {
				return Change{}, err
			}
			b := a
			if isRange {
				if b, err = strconv.ParseInt(hi, 10, 64); err != nil || b < a || b-a > 1<<20 {
					return Change{}, fmt.Errorf("bad range %q", part)
				}
			}
			for x := a; x <= b; x++ {
				c.Seqs = append(c.Seqs, x)
			}
		}
		return c, nil
	}
	return Change{}, fmt.Errorf("unknown payload %q", p)
}

// eventsAtSQL reads events by number with their tickets and matches. The
// events are found by a probe of the primary key per number (a LATERAL
// subquery the planner cannot merge into a join, OFFSET 0), and the
// tickets and matches they name by their primary keys. Written as
// "seq = ANY($1)", the first plans of each connection (custom plans, with no
// statistics) read every event ever stored, in parallel workers, for each
// batch of notifications. The numbers must not repeat (EventsAt sees to it).
const eventsAtSQL = `SELECT e.seq, e.ticket_id, e.kind, e.at, COALESCE(e.match_id, ''), e.reason,
	t.state, (t.body -> 'key')::text,
	CASE WHEN e.kind IN ('created', 'requeued') AND t.state = 'waiting' THEN t.body END,
	m.body, m.assignment
FROM unnest($1::bigint[]) AS x(seq)
CROSS JOIN LATERAL (SELECT * FROM events WHERE seq = x.seq OFFSET 0) AS e
JOIN tickets t ON t.id = e.ticket_id
LEFT JOIN matches m ON m.id = e.match_id
ORDER BY e.seq`

// EventsAt reads the ticket events with the given sequence numbers (from a
// Change), in sequence order, each with its ticket and, for matched and
// assigned events, its match and assignment. The whole ticket is read only
// for created and requeued events of a waiting ticket (a pool takes it in);
// for the others the ticket carries its id, queue key and state, which is
// what a pool needs to drop it. A match shared by several events is decoded
// once and shared, as the events of one commit share it.
func (s *Store) EventsAt(ctx context.Context, seqs []int64) ([]cupid.TicketChange, error) {
	if len(seqs) == 0 {
		return nil, nil
	}
	// A number given twice is read once.
	seqs = slices.Compact(slices.Sorted(slices.Values(seqs)))
	rows, err := s.pool.Query(ctx, eventsAtSQL, seqs)
	if err != nil {
		return nil, fmt.Errorf("postgres: read events by number: %w", err)
	}
	matches := map[string]*cupid.Match{}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (cupid.TicketChange, error) {
		var c cupid.TicketChange
		ev := &c.Event
		var kind, matchID, state, key string
		var at int64
		var ticket, body, asg []byte
		if err := r.Scan(&ev.Seq, &ev.TicketID, &kind, &at, &matchID, &ev.Reason, &state, &key, &ticket, &body, &asg); err != nil {
			return c, err
		}
		ev.Kind, ev.At = cupid.EventKind(kind), fromNanos(at)
		c.Ticket = new(cupid.Ticket)
		if ticket != nil {
			if err := json.Unmarshal(ticket, c.Ticket); err != nil {
				return c, fmt.Errorf("decode ticket %s: %w", ev.TicketID, err)
			}
		} else if err := json.Unmarshal([]byte(key), &c.Ticket.Key); err != nil {
			return c, fmt.Errorf("decode the key of ticket %s: %w", ev.TicketID, err)
		}
		c.Ticket.ID, c.Ticket.State = ev.TicketID, cupid.TicketState(state)
		if matchID != "" && body != nil {
			if ev.Match = matches[matchID]; ev.Match == nil {
				ev.Match = new(cupid.Match)
				if err := json.Unmarshal(body, ev.Match); err != nil {
					return c, fmt.Errorf("decode match %s: %w", matchID, err)
				}
				matches[matchID] = ev.Match
			}
		}
		if ev.Kind == cupid.EventAssigned && asg != nil {
			ev.Assignment = new(cupid.Assignment)
			if err := json.Unmarshal(asg, ev.Assignment); err != nil {
				return c, fmt.Errorf("decode assignment of %s: %w", matchID, err)
			}
		}
		return c, nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: read events by number: %w", err)
	}
	return out, nil
}

// WaitingTicketsOf returns a queue's waiting tickets, oldest first: what a
// node loads when it takes the queue's pools over.
func (s *Store) WaitingTicketsOf(ctx context.Context, queue string) ([]*cupid.Ticket, error) {
	return s.queryTickets(ctx, `SELECT `+ticketColumns+` FROM tickets WHERE queue = $1 AND state = 'waiting' ORDER BY created_at, id`, queue)
}

// Members lists the ids of the nodes seen within the last `within`.
func (s *Store) Members(ctx context.Context, within time.Duration) ([]string, error) {
	ns, err := s.Nodes(ctx, within)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(ns))
	for i, n := range ns {
		ids[i] = n.ID
	}
	return ids, nil
}

// LeaseHolder returns the node that holds a live lease and the address it
// announced, ok false when nobody holds it now.
func (s *Store) LeaseHolder(ctx context.Context, name string) (node, addr string, ok bool, err error) {
	err = s.pool.QueryRow(ctx, `SELECT l.owner, COALESCE(n.addr, '') FROM cluster_leases l LEFT JOIN cluster_nodes n ON n.id = l.owner
		WHERE l.name = $1 AND l.expires_at > clock_timestamp()`, name).Scan(&node, &addr)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, fmt.Errorf("postgres: read the holder of lease %s: %w", name, err)
	}
	return node, addr, true, nil
}
