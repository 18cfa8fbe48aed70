package storecopy_test

import (
	"database/sql"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite"

	"github.com/cupid-match/cupid/internal/storecopy"
)

// notCopied are the tables of the stores' schemas that the copy leaves
// out on purpose (see storecopy.Tables), and the bookkeeping tables of the
// databases and of the copy itself.
var notCopied = []string{"heartbeat", "cluster_nodes", "cluster_leases", "schema_migrations", "sqlite_sequence", storecopy.CheckpointTable}

// want lists "table.column" for every copied column.
func wantColumns() []string {
	var out []string
	for _, tb := range storecopy.Tables {
		for _, c := range tb.Columns {
			out = append(out, tb.Name+"."+c.Name)
		}
	}
	sort.Strings(out)
	return out
}

func sameColumns(t *testing.T, store string, got []string) {
	t.Helper()
	sort.Strings(got)
	if want := wantColumns(); !slices.Equal(got, want) {
		t.Errorf("%s's schema has the columns\n%s\nthe copy moves\n%s\n(a migration added a table or column: add it to storecopy.Tables, or to notCopied with the reason)",
			store, strings.Join(got, " "), strings.Join(want, " "))
	}
}

// TestTablesCoverTheSQLiteSchema: every stored column of the SQLite
// schema, as the migrations leave it, is one the copy moves.
func TestTablesCoverTheSQLiteSchema(t *testing.T) {
	_, path := openSQLite(t, "schema.db")
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// hidden is 2 or 3 for generated columns, which the destination computes.
	rows, err := db.Query(`SELECT m.name || '.' || c.name FROM sqlite_schema m, pragma_table_xinfo(m.name) c
		WHERE m.type = 'table' AND c.hidden = 0`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var col string
		if err := rows.Scan(&col); err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(notCopied, strings.Split(col, ".")[0]) {
			got = append(got, col)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	sameColumns(t, "SQLite", got)
}

// TestTablesCoverThePostgresSchema: the same for PostgreSQL.
func TestTablesCoverThePostgresSchema(t *testing.T) {
	u := newSchema(t)
	openPostgres(t, u) // brings the schema up to date
	conn, err := pgx.Connect(bg, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(bg)
	rows, err := conn.Query(bg, `SELECT table_name || '.' || column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND is_generated = 'NEVER'`)
	if err != nil {
		t.Fatal(err)
	}
	cols, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, col := range cols {
		if !slices.Contains(notCopied, strings.Split(col, ".")[0]) {
			got = append(got, col)
		}
	}
	sameColumns(t, "PostgreSQL", got)
}
