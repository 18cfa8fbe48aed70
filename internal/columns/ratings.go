package columns

import (
	"fmt"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// RatingsSchema is the ratings service's tables, the same on both SQL
// stores but for three words of dialect: seq, the history's own increasing
// key (SQLite: "INTEGER PRIMARY KEY AUTOINCREMENT", so a seq is never
// reused after a delete; PostgreSQL: "bigserial PRIMARY KEY"), integer, the
// type of times (INTEGER, bigint), and blob, the type of bytes (BLOB,
// bytea); each store's words are those of its released migration, which
// is never edited. One result per match, rows of bodies by kind and id,
// and an append-only history paged by seq per player.
func RatingsSchema(seq, integer, blob string) string {
	return fmt.Sprintf(`
CREATE TABLE rating_results (
	match_id TEXT PRIMARY KEY,
	at       %[2]s NOT NULL,
	body     %[3]s NOT NULL
);
CREATE TABLE rating_rows (
	kind TEXT NOT NULL,
	id   TEXT NOT NULL,
	body %[3]s NOT NULL,
	PRIMARY KEY (kind, id)
);
CREATE TABLE rating_history (
	seq      %[1]s,
	rating   TEXT NOT NULL,
	player   TEXT NOT NULL,
	match_id TEXT NOT NULL,
	at       %[2]s NOT NULL,
	body     %[3]s NOT NULL
);
CREATE INDEX rating_history_player ON rating_history (rating, player, seq);
`, seq, integer, blob)
}

// RatingWrites sorts the rows of a SaveResults or PutRatingRows call by
// how a SQL store writes them. Guarded rows that create (no Prev) go in
// one multi-row insert and guarded rewrites in one multi-row update over
// their Prev bodies: the count of rows each changed says whether every
// guard held. The rest, an operator's writes and guarded deletes, are rare
// and written one statement each. A guarded delete of a row none was read
// for does nothing and is dropped.
func RatingWrites(rows []cupid.RatingRow) (inserts, updates, single []cupid.RatingRow) {
	for _, row := range rows {
		switch {
		case row.Guard && row.Prev == nil && row.Body == nil:
		case row.Guard && row.Prev == nil:
			inserts = append(inserts, row)
		case row.Guard && row.Body != nil:
			updates = append(updates, row)
		default:
			single = append(single, row)
		}
	}
	return inserts, updates, single
}

// ResultsConflict is the conflict of a batch with a match that has a
// result already (or is in it twice), naming the match when there is one.
func ResultsConflict(results []cupid.ResultRecord) error {
	if len(results) == 1 {
		return cupid.Conflict("match_id", "match %s has a result already", results[0].MatchID)
	}
	return cupid.Conflict("match_id", "one of the %d matches has a result already", len(results))
}

// RowsConflict is the conflict of guarded rows one of which changed since
// it was read, naming it when there is only one.
func RowsConflict(rows []cupid.RatingRow) error {
	if len(rows) == 1 {
		return cupid.RowsChanged(rows[0].Kind, rows[0].ID)
	}
	return cupid.Conflict("rating_rows", "one of %d rows changed since it was read; read them again", len(rows))
}

// RatingRowsInOrder is RatingRows' answer from the bodies found by id:
// the rows that exist, in the order of ids.
func RatingRowsInOrder(kind string, ids []string, found map[string][]byte) []cupid.RatingRow {
	var out []cupid.RatingRow
	for _, id := range ids {
		if b, ok := found[id]; ok {
			out = append(out, cupid.RatingRow{Kind: kind, ID: id, Body: b})
		}
	}
	return out
}

// SelectRatingHistory reads a player's history, newest first: $1 the
// rating, $2 the player, $3 the seq to stay below, $4 the limit; a row is
// ScanRatingEntry's.
const SelectRatingHistory = `SELECT seq, match_id, at, body FROM rating_history
	WHERE rating = $1 AND player = $2 AND seq < $3 ORDER BY seq DESC LIMIT $4`

// ScanRatingEntry reads a row of SelectRatingHistory, a line of the
// player's history under the rating.
func ScanRatingEntry(rating, player string, scan func(...any) error) (cupid.RatingEntry, error) {
	e := cupid.RatingEntry{Rating: rating, Player: player}
	var at int64
	if err := scan(&e.Seq, &e.MatchID, &at, &e.Body); err != nil {
		return e, err
	}
	e.At = time.Unix(0, at).UTC()
	return e, nil
}
