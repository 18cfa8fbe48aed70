package opponentsvc

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/opponent"
)

// SnapshotKindPrefix starts the store kind of a finder's cache snapshot
// (the finder's name follows). Close writes it and Start reads and deletes
// it, so a restart brings each storing finder's cache back exactly as it
// was: the same entries (several per player included) in the same buckets
// of the same sizes. A snapshot is consumed when it is loaded, so after a
// crash — when no snapshot was written — the finder refills from its player
// table through the scan, as it always did.
const SnapshotKindPrefix = "opponent-snapshot/"

// snapshotChunkEntries bounds the entries of one stored chunk, so no
// document grows with the cache.
const snapshotChunkEntries = 2000

// snapshotHead is the snapshot's last document, written after every chunk:
// the buckets without their entries, how many entries each has and how
// many chunks hold them. A snapshot without its head is incomplete (the
// server stopped while writing it) and is ignored.
type snapshotHead struct {
	Snapshot opponent.Snapshot `json:"snapshot"`
	Counts   []int             `json:"counts"`
	Chunks   int               `json:"chunks"`
}

// snapshotRow is one entry of a chunk and the index of its bucket.
type snapshotRow struct {
	Bucket int `json:"b"`
	opponent.SnapshotEntry
}

const snapshotHeadID = "head"

func snapshotChunkID(i int) string { return fmt.Sprintf("chunk-%08d", i) }

// snapshots reports whether the finder keeps a snapshot: only finders whose
// players are stored do, since a memory-only finder's cache is promised to
// start empty.
func (s *Service) snapshots(fd *finder) bool { return s.docs != nil && fd.table.stores }

// saveSnapshots writes every storing finder's snapshot; errors are logged,
// since the scan refills a cache whose snapshot is missing.
func (s *Service) saveSnapshots() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, name := range s.names {
		fd := s.finders[name]
		if !s.snapshots(fd) {
			continue
		}
		fd.mu.Lock()
		snap := fd.f.Snapshot(s.now())
		fd.mu.Unlock()
		if err := s.writeSnapshot(ctx, fd, snap); err != nil {
			s.log.Error("opponent finder: cache snapshot not stored; the scan will refill the cache after the restart", "finder", fd.name, "err", err)
			continue
		}
		s.log.Info("opponent finder: cache snapshot stored", "finder", fd.name, "entries", fd.f.Len())
	}
}

func (s *Service) writeSnapshot(ctx context.Context, fd *finder, snap opponent.Snapshot) error {
	kind := SnapshotKindPrefix + fd.name
	if err := s.dropSnapshot(ctx, kind); err != nil {
		return err
	}
	head := snapshotHead{Snapshot: snap, Counts: make([]int, len(snap.Buckets))}
	var chunk []snapshotRow
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		body, err := json.Marshal(chunk)
		if err != nil {
			return err
		}
		if err := s.docs.PutDocument(ctx, cupid.Fence{}, kind, snapshotChunkID(head.Chunks), body, s.now()); err != nil {
			return err
		}
		head.Chunks++
		chunk = chunk[:0]
		return nil
	}
	for bi := range head.Snapshot.Buckets {
		b := &head.Snapshot.Buckets[bi]
		head.Counts[bi] = len(b.Entries)
		for _, e := range b.Entries {
			chunk = append(chunk, snapshotRow{Bucket: bi, SnapshotEntry: e})
			if len(chunk) == snapshotChunkEntries {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		b.Entries = nil
	}
	if err := flush(); err != nil {
		return err
	}
	body, err := json.Marshal(head)
	if err != nil {
		return err
	}
	return s.docs.PutDocument(ctx, cupid.Fence{}, kind, snapshotHeadID, body, s.now())
}

// dropSnapshot deletes every document of a snapshot kind.
func (s *Service) dropSnapshot(ctx context.Context, kind string) error {
	docs, err := s.docs.Documents(ctx, kind, "", 0)
	if err != nil {
		return err
	}
	for _, d := range docs {
		if err := s.docs.DeleteDocument(ctx, cupid.Fence{}, kind, d.ID); err != nil {
			return err
		}
	}
	return nil
}

// loadSnapshot restores a finder's cache from its stored snapshot, if there
// is a complete one, and deletes it. A snapshot that does not fit the finder
// any more (its configuration changed) is logged and dropped; the scan
// refills the cache instead. It reports the entries restored.
func (s *Service) loadSnapshot(ctx context.Context, fd *finder) (int, error) {
	kind := SnapshotKindPrefix + fd.name
	docs, err := s.docs.Documents(ctx, kind, "", 0)
	if err != nil {
		return 0, fmt.Errorf("opponents: load the cache snapshot of %s: %w", fd.name, err)
	}
	if len(docs) == 0 {
		return 0, nil
	}
	snap, err := decodeSnapshot(docs)
	restored := 0
	if err == nil {
		fd.mu.Lock()
		err = fd.f.Restore(snap, s.now())
		restored = fd.f.Len()
		fd.mu.Unlock()
	}
	if err != nil {
		s.log.Warn("opponent finder: stored cache snapshot not used; the scan refills the cache", "finder", fd.name, "err", err)
	}
	// Consumed: a later crash must not bring this cache back.
	if err := s.dropSnapshot(ctx, kind); err != nil {
		return restored, fmt.Errorf("opponents: delete the loaded cache snapshot of %s: %w", fd.name, err)
	}
	return restored, nil
}

// decodeSnapshot puts a snapshot's documents (in id order: the chunks, then
// the head) back together.
func decodeSnapshot(docs []cupid.Document) (opponent.Snapshot, error) {
	var head snapshotHead
	var chunks [][]byte
	found := false
	for _, d := range docs {
		if d.ID == snapshotHeadID {
			if err := json.Unmarshal(d.Body, &head); err != nil {
				return opponent.Snapshot{}, fmt.Errorf("snapshot head: %w", err)
			}
			found = true
			continue
		}
		chunks = append(chunks, d.Body)
	}
	switch {
	case !found:
		return opponent.Snapshot{}, fmt.Errorf("the snapshot is incomplete (no head): the server stopped while writing it")
	case len(chunks) != head.Chunks || len(head.Counts) != len(head.Snapshot.Buckets):
		return opponent.Snapshot{}, fmt.Errorf("the snapshot has %d chunks, its head says %d", len(chunks), head.Chunks)
	}
	snap := head.Snapshot
	for i, body := range chunks {
		var rows []snapshotRow
		if err := json.Unmarshal(body, &rows); err != nil {
			return opponent.Snapshot{}, fmt.Errorf("snapshot chunk %d: %w", i, err)
		}
		for _, r := range rows {
			if r.Bucket < 0 || r.Bucket >= len(snap.Buckets) {
				return opponent.Snapshot{}, fmt.Errorf("snapshot chunk %d: bucket %d out of range", i, r.Bucket)
			}
			b := &snap.Buckets[r.Bucket]
			b.Entries = append(b.Entries, r.SnapshotEntry)
		}
	}
	for bi, b := range snap.Buckets {
		if len(b.Entries) != head.Counts[bi] {
			return opponent.Snapshot{}, fmt.Errorf("snapshot bucket %s has %d entries, its head says %d", b.Key, len(b.Entries), head.Counts[bi])
		}
	}
	return snap, nil
}
