package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Backup writes a consistent copy of the database file at path to the new
// file to, while a server may be running on it: SQLite's VACUUM INTO reads
// the database as of one moment (WAL lets it read beside the writer) and
// writes a compact copy that is a database of its own, ready to be started
// on. It refuses to overwrite a file that exists.
func Backup(ctx context.Context, path, to string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	if _, err := os.Stat(to); err == nil {
		return fmt.Errorf("sqlite: backup: %s exists; give a new file", to)
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	if dir := filepath.Dir(to); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("sqlite: backup: %w", err)
		}
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&mode=ro")
	if err != nil {
		return fmt.Errorf("sqlite: backup: open %s: %w", path, err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, to); err != nil {
		os.Remove(to)
		return fmt.Errorf("sqlite: backup %s into %s: %w", path, to, err)
	}
	return nil
}
