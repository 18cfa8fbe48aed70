package postgres

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

func migrationCount(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestOpenTogether opens one empty database from several goroutines at
// once, as nodes starting together would: the advisory lock makes them
// take turns, the first applies the migrations and the others find them
// done.
func TestOpenTogether(t *testing.T) {
	url := newSchema(t)
	const n = 8
	stores := make([]*Store, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { stores[i], errs[i] = Open(context.Background(), url) })
	}
	wg.Wait()
	for _, s := range stores {
		if s != nil {
			t.Cleanup(func() { s.Close() })
		}
	}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
	}
	if got := migrationCount(t, stores[0].pool); got != len(migrations) {
		t.Fatalf("%d migrations recorded, want %d", got, len(migrations))
	}
	if err := stores[n-1].Ping(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestMigrations: a failed migration leaves the database as it was and a
// later Open applies it; a database from a newer build, or one whose
// recorded migrations are not ours, is refused.
func TestMigrations(t *testing.T) {
	url := newSchema(t)
	ctx := context.Background()
	s := openAt(t, url)
	pool := s.pool

	failing := append(append([]migration(nil), migrations...),
		migration{"half done", `CREATE TABLE half (x int); SELECT 1/0`})
	err := migrate(ctx, pool, failing)
	if err == nil || !strings.Contains(err.Error(), "half done") || !strings.Contains(err.Error(), "division by zero") {
		t.Fatalf("failing migration: %v", err)
	}
	if got := migrationCount(t, pool); got != len(migrations) {
		t.Fatalf("%d migrations recorded after a failure, want %d", got, len(migrations))
	}
	var exists bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass('half') IS NOT NULL`).Scan(&exists); err != nil || exists {
		t.Fatalf("the failed migration's table exists (%v)", err)
	}

	next := append(append([]migration(nil), migrations...), migration{"a column", `ALTER TABLE documents ADD COLUMN note text`})
	if err := migrate(ctx, pool, next); err != nil {
		t.Fatal(err)
	}
	if got := migrationCount(t, pool); got != len(next) {
		t.Fatalf("%d migrations recorded, want %d", got, len(next))
	}
	// This build does not know migration len(next): the database is newer.
	if _, err := Open(ctx, url); err == nil || !strings.Contains(err.Error(), "newer than this build") {
		t.Fatalf("open of a newer database: %v", err)
	}

	other := newSchema(t)
	s2 := openAt(t, other)
	if _, err := s2.pool.Exec(ctx, `UPDATE schema_migrations SET name = 'something else' WHERE version = 1`); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, other); err == nil || !strings.Contains(err.Error(), "not one this build of Cupid wrote") {
		t.Fatalf("open of a foreign database: %v", err)
	}
}

// TestMigrationGivesWayToWriters: a migration that locks two tables which
// a running node's transaction writes in the other order (a rolling
// upgrade: old nodes keep writing while the first new node migrates)
// deadlocks with it; PostgreSQL aborts the migration (the writer's own
// deadlock check is set later), and migrate tries again once the writer
// is done, instead of failing the new node's start.
func TestMigrationGivesWayToWriters(t *testing.T) {
	url := newSchema(t)
	ctx := context.Background()
	s := openAt(t, url)
	pool := s.pool
	base := append(append([]migration(nil), migrations...),
		migration{"two tables", `CREATE TABLE mig_a (x int); CREATE TABLE mig_b (x int)`})
	if err := migrate(ctx, pool, base); err != nil {
		t.Fatal(err)
	}
	// The writer holds mig_b (ROW EXCLUSIVE) and will then write mig_a.
	writer, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Rollback(ctx)
	if _, err := writer.Exec(ctx, `SET LOCAL deadlock_timeout = '30s'`); err != nil {
		t.Fatal(err)
	}
	if _, err := writer.Exec(ctx, `INSERT INTO mig_b VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	next := append(base, migration{"indexes on both", `CREATE INDEX mig_a_x ON mig_a (x); CREATE INDEX mig_b_x ON mig_b (x)`})
	done := make(chan error, 1)
	go func() { done <- migrate(ctx, pool, next) }()
	// Wait until the migration holds mig_a and waits for mig_b.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var waiting bool
		if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
			WHERE c.relname = 'mig_b' AND NOT l.granted)`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the migration never waited for mig_b")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The writer's next write closes the cycle; the migration is the
	// victim, rolls back, and the writer goes on.
	if _, err := writer.Exec(ctx, `INSERT INTO mig_a VALUES (1)`); err != nil {
		t.Fatalf("the writer lost: %v", err)
	}
	if err := writer.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the migration did not try again: %v", err)
	}
	if got := migrationCount(t, pool); got != len(next) {
		t.Fatalf("%d migrations recorded, want %d", got, len(next))
	}
}
