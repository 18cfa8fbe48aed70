package storecopy_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/cupid-match/cupid/postgres"
	"github.com/cupid-match/cupid/sqlite"
)

// The tests copy between real stores: SQLite files in the test's temporary
// directory and PostgreSQL schemas in the server CUPID_TEST_POSTGRES names
// (default the local one), each schema dropped when its test ends. When no
// PostgreSQL server answers, the tests that need one skip, saying so; a
// server that answers but fails them fails them.

const defaultPostgres = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

var bg = context.Background()

func openSQLite(t testing.TB, name string) (*sqlite.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	s, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

// newSchema creates an empty schema and returns a URL whose connections
// use it; the schema goes when the test ends.
func newSchema(t testing.TB) string {
	t.Helper()
	admin := os.Getenv("CUPID_TEST_POSTGRES")
	if admin == "" {
		admin = defaultPostgres
	}
	ctx, cancel := context.WithTimeout(bg, 2*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		var pe *pgconn.PgError
		var ne net.Error
		if !errors.As(err, &pe) && (errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err)) {
			t.Skipf("no PostgreSQL server answered (%v); set CUPID_TEST_POSTGRES to a server's postgres database URL to run this test", err)
		}
		t.Fatal(err)
	}
	defer conn.Close(bg)
	var b [6]byte
	rand.Read(b[:])
	schema := "storecopy_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(bg, "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(bg, admin)
		if err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer c.Close(bg)
		if _, err := c.Exec(bg, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	u, _ := url.Parse(admin)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func openPostgres(t testing.TB, u string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(bg, u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
