package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/cupid-match/cupid/sqlite"
)

func backupCmd() *cobra.Command {
	var data, to string
	cmd := &cobra.Command{
		Use:   "backup --data <data directory> --to <new file>",
		Short: "Copy the embedded store consistently, while its server runs",
		Long: `backup writes a consistent copy of the embedded SQLite store (the cupid.db of
a data directory) to a new file, while a server may be running on it: the copy
is the database as of one moment, compacted, and a database of its own.

To restore, stop the server, put the copy in a data directory as cupid.db (with
no cupid.db-wal or cupid.db-shm beside it) and start the server on that
directory. A PostgreSQL store is backed up with PostgreSQL's own tools
(docs/deployment.md).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if to == "" {
				return fmt.Errorf("--to: required: the new file to write the copy to")
			}
			from := filepath.Join(data, "cupid.db")
			if err := sqlite.Backup(cmd.Context(), from, to); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: a consistent copy of %s\n", to, from)
			return nil
		},
	}
	cmd.Flags().StringVar(&data, "data", "cupid-data", "the data directory of the store (as serve's --data)")
	cmd.Flags().StringVar(&to, "to", "", "the new file to write the copy to")
	return cmd
}
