// Package storecopy copies a Cupid store into another: SQLite into
// PostgreSQL when one node grows into several, and back. Rows go as they
// are — same ids, same sequence numbers, same times — table by table, in
// batches; each batch commits in the destination together with a checkpoint
// (the last key copied in its table), so a copy that stops, however it
// stops, carries on from its last batch when it is run again.
//
// The stores implement Source and Destination (sqlite/copy.go,
// postgres/copy.go); this package knows the tables and runs the copy, and
// does no I/O of its own beyond what they do.
package storecopy

// Kind is how a column's values travel between the stores. The two schemas
// spell the same column differently (a SQLite BLOB holding JSON is a
// PostgreSQL json; a SQLite INTEGER 0/1 is a boolean), so each store
// converts between its own spelling and these Go values.
type Kind int

const (
	Text  Kind = iota // string
	Int               // int64
	Bytes             // []byte, bytes in and the same bytes out
	JSON              // []byte holding JSON text, kept byte for byte
	Bool              // bool
)

// Column is one copied column. Generated columns (matches.queue,
// matches.backfill) are not copied: the destination computes them.
type Column struct {
	Name string
	Kind Kind
	Null bool // may hold NULL (nil)
}

// Table is one copied table. Its first Key columns are its primary key,
// Text or Int: rows are read in key order and a checkpoint is the last key
// copied.
type Table struct {
	Name    string
	Columns []Column
	Key     int
	// Seq names the column whose values a sequence hands out (events.seq
	// and the like); after the copy the destination's sequence continues
	// past the largest value copied.
	Seq string
	// Stamp names an integer column whose largest value grows with every
	// write to the table: a sequence number, or a time of last change. With
	// the row counts it tells a resumed copy whether the source changed
	// since the copy began (see Copy).
	Stamp string
}

// Names returns the table's column names in order.
func (t Table) Names() []string {
	out := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = c.Name
	}
	return out
}

// KeyNames returns the names of the key columns.
func (t Table) KeyNames() []string { return t.Names()[:t.Key] }

// Tables are the tables a copy moves, in the order it moves them. The
// stores declare no foreign keys, but the order still puts what is referred
// to before what refers to it (tickets and matches before their events and
// indexes), so a destination looked at half-way has no event without its
// ticket. Not copied: the heartbeat (rewritten by every Ping) and the
// cluster's node and lease rows (the nodes that start on the destination
// write their own).
var Tables = []Table{
	{Name: "tickets", Key: 1, Stamp: "updated_at", Columns: []Column{
		{"id", Text, false},
		{"queue", Text, false},
		{"request_id", Text, true},
		{"state", Text, false},
		{"created_at", Int, false},
		{"updated_at", Int, false},
		{"match_id", Text, true},
		{"reason", Text, false},
		{"body", JSON, false},
	}},
	{Name: "matches", Key: 1, Stamp: "updated_at", Columns: []Column{
		{"id", Text, false},
		{"created_at", Int, false},
		{"state", Text, false},
		{"assignment", JSON, true},
		{"updated_at", Int, true},
		{"reason", Text, false},
		{"body", JSON, false},
	}},
	{Name: "events", Key: 1, Seq: "seq", Stamp: "seq", Columns: []Column{
		{"seq", Int, false},
		{"ticket_id", Text, false},
		{"kind", Text, false},
		{"at", Int, false},
		{"match_id", Text, true},
		{"reason", Text, false},
	}},
	{Name: "match_events", Key: 1, Seq: "seq", Stamp: "seq", Columns: []Column{
		{"seq", Int, false},
		{"match_id", Text, false},
		{"queue", Text, false},
		{"kind", Text, false},
		{"at", Int, false},
		{"detail", JSON, true},
	}},
	{Name: "match_answers", Key: 2, Stamp: "at", Columns: []Column{
		{"match_id", Text, false},
		{"player_id", Text, false},
		{"accept", Bool, false},
		{"at", Int, false},
	}},
	{Name: "match_players", Key: 2, Columns: []Column{
		{"player_id", Text, false},
		{"match_id", Text, false},
	}},
	{Name: "live_players", Key: 2, Columns: []Column{
		{"player_id", Text, false},
		{"queue", Text, false},
		{"ticket_id", Text, false},
	}},
	{Name: "documents", Key: 2, Stamp: "updated_at", Columns: []Column{
		{"kind", Text, false},
		{"id", Text, false},
		{"body", Bytes, false},
		{"updated_at", Int, false},
	}},
	{Name: "rating_results", Key: 1, Stamp: "at", Columns: []Column{
		{"match_id", Text, false},
		{"at", Int, false},
		{"body", Bytes, false},
	}},
	{Name: "rating_rows", Key: 2, Columns: []Column{
		{"kind", Text, false},
		{"id", Text, false},
		{"body", Bytes, false},
	}},
	{Name: "rating_history", Key: 1, Seq: "seq", Stamp: "seq", Columns: []Column{
		{"seq", Int, false},
		{"rating", Text, false},
		{"player", Text, false},
		{"match_id", Text, false},
		{"at", Int, false},
		{"body", Bytes, false},
	}},
	// The match log's horizons: a copy keeps telling a backend resuming
	// from before what retention removed.
	{Name: "retention_horizons", Key: 1, Stamp: "seq", Columns: []Column{
		{"queue", Text, false},
		{"seq", Int, false},
	}},
	// Encounters have no stamp: a row's time is when the players met, and
	// a follower may add an older meeting after a newer one.
	{Name: "encounters", Key: 3, Columns: []Column{
		{"player_id", Text, false},
		{"other_id", Text, false},
		{"ref", Text, false},
		{"mode", Text, false},
		{"side", Text, false},
		{"place", Text, false},
		{"at", Int, false},
		{"outcome", Text, false},
	}},
	{Name: "encounter_lists", Key: 3, Stamp: "at", Columns: []Column{
		{"player_id", Text, false},
		{"kind", Text, false},
		{"other_id", Text, false},
		{"weight", Int, false},
		{"at", Int, false},
	}},
}

// CheckpointTable is the destination's table of checkpoints, one row per
// copied table. It is not part of the store's schema: the copy creates it,
// and it stays after the copy as the record that the store's rows came
// from a copy (and from which source), which a second run reads to find
// there is nothing left to do.
const CheckpointTable = "cupid_store_copy"
