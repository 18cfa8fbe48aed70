package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/cupid-match/cupid/internal/storecopy"
	"github.com/cupid-match/cupid/postgres"
	"github.com/cupid-match/cupid/sqlite"
)

func storeCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "store",
		Short: "Work on a store: copy one into another, back up the embedded one",
	}
	cmd.AddCommand(backupCmd())
	var from, to string
	var batch int
	copyCmd := &cobra.Command{
		Use:   "copy --from <data directory, .db file or postgres URL> --to <the same>",
		Short: "Copy a stopped store into an empty one: SQLite to PostgreSQL, or back",
		Long: `copy copies every ticket, match, event, match event, ready-check answer,
document (speed-dating events, rulesets) and rating of one store into another,
as they are: same ids, same sequence numbers, same times. A store is a SQLite
data directory (what serve's --data names; its cupid.db), a SQLite file ending
in .db, or a postgres:// URL.

Stop the servers on the source first. The copy reads the source as of one
moment, so a server writing meanwhile would lose what it wrote after that.

Rows go in batches, each committed with a checkpoint in the destination: a
copy that stops (Ctrl-C, kill, a lost connection) carries on from its last
batch when the same command is run again. A destination holding rows that no
copy wrote is refused.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from == "" || to == "" {
				return errors.New("--from and --to are both required")
			}
			if batch <= 0 {
				return fmt.Errorf("--batch: must be positive, not %d", batch)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runStoreCopy(ctx, cmd.OutOrStdout(), from, to, batch)
		},
	}
	copyCmd.Flags().StringVar(&from, "from", "", "the store to copy: a SQLite data directory, a .db file, or a postgres:// URL")
	copyCmd.Flags().StringVar(&to, "to", "", "the store to fill, empty or part-filled by an earlier run of this copy: a SQLite data directory (created if missing), a .db file, or a postgres:// URL")
	copyCmd.Flags().IntVar(&batch, "batch", storecopy.DefaultBatch, "rows per transaction (and per checkpoint)")
	cmd.AddCommand(copyCmd)
	return cmd
}

// copyStore is what a store is to the copy: a source, a destination, and
// something to close.
type copyStore interface {
	storecopy.Source
	storecopy.Destination
	Close() error
}

// openCopyStore opens the store a --from or --to names. name describes it
// without a password; the checkpoints keep the source's.
func openCopyStore(ctx context.Context, flag, spec string, mustExist bool) (s copyStore, name string, err error) {
	if strings.HasPrefix(spec, "postgres://") || strings.HasPrefix(spec, "postgresql://") {
		u, err := url.Parse(spec)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", flag, err)
		}
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		s, err := postgres.Open(ctx, spec)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", flag, err)
		}
		return s, u.Redacted(), nil
	}
	path := spec
	if st, err := os.Stat(spec); (err == nil && st.IsDir()) || !strings.HasSuffix(spec, ".db") {
		path = filepath.Join(spec, "cupid.db")
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if mustExist {
		if _, err := os.Stat(path); err != nil {
			return nil, "", fmt.Errorf("%s: no SQLite database at %s: %w", flag, path, err)
		}
	}
	db, err := sqlite.Open(path)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", flag, err)
	}
	return db, path, nil
}

func runStoreCopy(ctx context.Context, out io.Writer, from, to string, batch int) error {
	src, srcName, err := openCopyStore(ctx, "--from", from, true)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, dstName, err := openCopyStore(ctx, "--to", to, false)
	if err != nil {
		return err
	}
	defer dst.Close()
	if srcName == dstName {
		return fmt.Errorf("--from and --to are the same store, %s", srcName)
	}
	fmt.Fprintf(out, "copying %s into %s\n", srcName, dstName)
	// A line per table at most once a second, and its last one.
	printed := map[string]time.Time{}
	err = storecopy.Copy(ctx, src, dst, storecopy.Options{
		Source: srcName,
		Batch:  batch,
		Progress: func(p storecopy.Progress) {
			if !p.Done && time.Since(printed[p.Table]) < time.Second {
				return
			}
			printed[p.Table] = time.Now()
			fmt.Fprintln(out, progressLine(p))
		},
	})
	switch {
	case err != nil && ctx.Err() != nil:
		return fmt.Errorf("stopped; every batch before this point is committed: run the same command again to carry on (%w)", err)
	case err != nil:
		return err
	}
	fmt.Fprintf(out, "done: %s holds a copy of %s; start the servers on it\n", dstName, srcName)
	return nil
}

// progressLine says how far a table is.
func progressLine(p storecopy.Progress) string {
	pct := 100.0
	if p.Total > 0 {
		pct = 100 * float64(p.Copied) / float64(p.Total)
	}
	line := fmt.Sprintf("%-15s %d/%d rows (%.0f%%)", p.Table, p.Copied, p.Total, pct)
	if p.Rate > 0 {
		line += fmt.Sprintf(", %.0f rows/s", p.Rate)
	}
	switch {
	case p.Done && p.Rate == 0 && p.Resumed:
		line += ", copied by an earlier run"
	case p.Done:
		line += ", done"
	case p.Resumed:
		line += ", resumed"
	}
	return line
}
