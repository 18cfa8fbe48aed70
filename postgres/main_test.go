package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The tests run against a real PostgreSQL server. TestMain creates a fresh
// database with a random name through the server's postgres database and
// drops it at the end; each store a test opens lives in a schema of its own
// in that database (search_path in the URL), which costs a few milliseconds
// where a database per store would cost a CREATE DATABASE each.

// envURL names the variable that points the tests at a server.
const envURL = "CUPID_TEST_POSTGRES"

const defaultURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// answerWithin is how long the tests wait for a server before they skip.
const answerWithin = 2 * time.Second

var server struct {
	admin   string // URL of the postgres database
	dbURL   string // URL of this run's database
	skip    string // why the tests skip: no server answered
	failure error  // why the tests fail: a server answered, but setup failed
}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	server.admin = os.Getenv(envURL)
	if server.admin == "" {
		server.admin = defaultURL
	}
	name, err := setupDatabase()
	if err != nil {
		return m.Run() // every test skips or fails with server.skip or server.failure
	}
	defer func() {
		if err := dropDatabase(name); err != nil {
			fmt.Fprintf(os.Stderr, "postgres tests: drop database %s: %v\n", name, err)
		}
	}()
	return m.Run()
}

// setupDatabase connects to the server and creates this run's database. It
// sets server.skip when no server answered in time and server.failure when
// one answered but something else went wrong: only silence means skip.
func setupDatabase() (string, error) {
	u, err := url.Parse(server.admin)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		server.failure = fmt.Errorf("%s=%q is not a postgres:// URL", envURL, server.admin)
		return "", server.failure
	}
	ctx, cancel := context.WithTimeout(context.Background(), answerWithin)
	defer cancel()
	conn, err := pgx.Connect(ctx, server.admin)
	if err != nil {
		if noAnswer(err) {
			server.skip = fmt.Sprintf("no PostgreSQL server answered at %s within %v (%v); "+
				"set %s to the URL of a server's postgres database, e.g. %s=%s, to run these tests",
				redact(u), answerWithin, err, envURL, envURL, defaultURL)
		} else {
			server.failure = fmt.Errorf("connect to %s: %w", redact(u), err)
		}
		return "", err
	}
	defer conn.Close(context.Background())
	var b [6]byte
	rand.Read(b[:])
	name := "cupid_test_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(context.Background(), "CREATE DATABASE "+name); err != nil {
		server.failure = fmt.Errorf("create database %s on %s: %w", name, redact(u), err)
		return "", err
	}
	db := *u
	db.Path = "/" + name
	server.dbURL = db.String()
	return name, nil
}

// noAnswer reports whether connecting failed because nothing answered: the
// address refused or dropped the connection, or the wait ran out. An error
// the server sent (authentication, a missing database) is not one of them.
func noAnswer(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return false
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err)
}

func redact(u *url.URL) string { return u.Redacted() }

func dropDatabase(name string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, server.admin)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	// WITH (FORCE) (PostgreSQL 13) ends connections a failed test left.
	_, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	if pe := (*pgconn.PgError)(nil); errors.As(err, &pe) && pe.Code == "42601" {
		_, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name)
	}
	return err
}

// needServer skips or fails tb as setup decided, or returns the URL of this
// run's database.
func needServer(tb testing.TB) string {
	tb.Helper()
	switch {
	case server.skip != "":
		tb.Skip(server.skip)
	case server.failure != nil:
		tb.Fatalf("PostgreSQL test setup: %v", server.failure)
	}
	return server.dbURL
}

// newSchema creates an empty schema in this run's database and returns a
// URL whose connections work in it.
func newSchema(tb testing.TB) string {
	tb.Helper()
	dbURL := needServer(tb)
	var b [6]byte
	rand.Read(b[:])
	schema := "s_" + hex.EncodeToString(b[:])
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		tb.Fatal(err)
	}
	u, _ := url.Parse(dbURL)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// openAt opens a store at url and closes it when the test ends.
func openAt(tb testing.TB, url string) *Store {
	tb.Helper()
	s, err := Open(context.Background(), url)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// schemaOf reads the search_path back out of a newSchema URL.
func schemaOf(u string) string {
	p, _ := url.Parse(u)
	return strings.TrimSpace(p.Query().Get("search_path"))
}
