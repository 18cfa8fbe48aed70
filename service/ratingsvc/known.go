package ratingsvc

import (
	"context"
	"sync"

	cupid "github.com/cupid-match/cupid"
)

// known holds the players' ratings as this service last stored them, up to
// maxKnown rows, so that a batch need not read them back from the store: the
// same players play again and again, and the read was a query per batch
// and a tenth of a result's cost on SQLite.
//
// A known body is only a guess of what the store holds: every player's row a
// batch reads it also rewrites, guarded by the body it read (cupid.RatingRow),
// so a row another writer (another server) changed meanwhile fails the
// batch's write, which forgets the batch's rows here; the batch is then read
// again from the store. A batch's rows are known from the moment its write
// begins (pending) to its end, and afterwards only when it stored them and
// they are players' ratings: league days and low-priority marks, which a
// batch may read without writing them, are read from the store each time.
type known struct {
	mu    sync.Mutex
	rows  map[string]*knownRow // by kind + "\x00" + id
	fifo  []fifoEntry          // committed rows, oldest first, for eviction
	gen   uint64               // the last batch's number
	stamp uint64               // the last fifo entry's number
}

// fifoEntry is a committed row's place in the eviction order; an entry
// whose stamp is no longer its row's was overtaken by a later write.
type fifoEntry struct {
	key   string
	stamp uint64
}

// knownRow is a row's body as written or being written; nil: no row.
type knownRow struct {
	body    []byte
	gen     uint64 // the batch that wrote it
	pending bool
	stamp   uint64 // its fifo entry, once committed
}

// maxKnown bounds the committed rows kept: about 650 bytes each, so some
// 20 MB at most.
const maxKnown = 1 << 15

func newKnown() *known { return &known{rows: map[string]*knownRow{}} }

func knownKey(kind, id string) string { return kind + "\x00" + id }

// read returns the rows of a kind with the given ids that exist, in the
// order of ids, as RatingStore.RatingRows does: known ones from memory, the
// others from the store in one call.
func (k *known) read(ctx context.Context, store cupid.RatingStore, kind string, ids []string) ([]cupid.RatingRow, error) {
	var missing []string
	have := make(map[string]*knownRow, len(ids))
	k.mu.Lock()
	for _, id := range ids {
		if r := k.rows[knownKey(kind, id)]; r != nil {
			have[id] = r
		} else {
			missing = append(missing, id)
		}
	}
	k.mu.Unlock()
	var stored map[string][]byte
	if len(missing) > 0 {
		rows, err := store.RatingRows(ctx, kind, missing)
		if err != nil {
			return nil, err
		}
		stored = make(map[string][]byte, len(rows))
		for _, r := range rows {
			stored[r.ID] = r.Body
		}
	}
	var out []cupid.RatingRow
	for _, id := range ids {
		body, ok := stored[id]
		if r := have[id]; r != nil {
			body, ok = r.body, r.body != nil
		}
		if ok {
			out = append(out, cupid.RatingRow{Kind: kind, ID: id, Body: body})
		}
	}
	return out, nil
}

// begin records the rows a batch is about to write and returns the batch's
// number, for done.
func (k *known) begin(rows []cupid.RatingRow) uint64 {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.gen++
	for _, r := range rows {
		k.rows[knownKey(r.Kind, r.ID)] = &knownRow{body: r.Body, gen: k.gen, pending: true}
	}
	return k.gen
}

// done ends batch gen's write of rows: stored (ok) or not. A row a later
// batch has written since is that batch's to end. When the write failed the
// rows are forgotten, so the next batch reads them from the store (a later
// batch planned on them fails its guards and does the same).
func (k *known) done(gen uint64, rows []cupid.RatingRow, ok bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, r := range rows {
		key := knownKey(r.Kind, r.ID)
		kr := k.rows[key]
		if kr == nil || kr.gen != gen {
			continue
		}
		if !ok || r.Kind != kindPlayer || r.Body == nil {
			delete(k.rows, key)
			continue
		}
		k.stamp++
		kr.pending, kr.stamp = false, k.stamp
		k.fifo = append(k.fifo, fifoEntry{key, k.stamp})
	}
	k.evict()
}

// evict drops the oldest committed rows beyond maxKnown. Every committed
// row has one entry in fifo with its stamp, so fifo's length bounds them.
func (k *known) evict() {
	for len(k.fifo) > maxKnown {
		e := k.fifo[0]
		k.fifo = k.fifo[1:]
		if kr := k.rows[e.key]; kr != nil && !kr.pending && kr.stamp == e.stamp {
			delete(k.rows, e.key)
		}
	}
}
