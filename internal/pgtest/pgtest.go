// Package pgtest gives a test a fresh PostgreSQL database of its own.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultAdmin is the server's postgres database when CUPID_TEST_POSTGRES
// names none: the local server with trust authentication.
const DefaultAdmin = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// URL creates a fresh database, named prefix and a random suffix, on the
// PostgreSQL server named by CUPID_TEST_POSTGRES (DefaultAdmin when unset),
// drops it when the test ends, and returns its URL. It skips the test,
// saying how to point it at a server, only when no server answers: a server
// that answers and fails fails the test.
func URL(t testing.TB, prefix string) string {
	t.Helper()
	admin := os.Getenv("CUPID_TEST_POSTGRES")
	if admin == "" {
		admin = DefaultAdmin
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) {
			t.Skipf("no PostgreSQL server answered (%v); set CUPID_TEST_POSTGRES to a server's postgres:// URL to run this test", err)
		}
		t.Fatalf("connect to PostgreSQL: %v", err)
	}
	defer conn.Close(context.Background())
	b := make([]byte, 6)
	rand.Read(b)
	name := prefix + "_" + hex.EncodeToString(b)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, admin)
		if err != nil {
			t.Logf("drop %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Logf("drop %s: %v", name, err)
		}
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}
