package opponent

import (
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/cupid-match/cupid"
)

// Snapshot is the cache exactly as it stands: every bucket in creation
// order, with its labels and size, and its entries in their dense order. A
// server stores one when it stops and restores it when it starts again, so
// the cache comes back as it was — the same players, several entries per
// player each in its own bucket, in the same buckets of the same sizes —
// instead of being refilled from the player table, which keeps each
// player's latest model only and goes through the thresholds and the
// replace-on-insert hashing again. It is plain JSON.
type Snapshot struct {
	Version   int       `json:"version"`
	CreatedAt time.Time `json:"created_at"`
	// The layout the buckets refer to; a snapshot made for another one
	// does not restore.
	MinMMR         float64          `json:"min_mmr"`
	MaxMMR         float64          `json:"max_mmr"`
	MmrBucketCount int              `json:"mmr_bucket_count"`
	Multi          bool             `json:"multi,omitempty"`
	Buckets        []SnapshotBucket `json:"buckets"`
	// ScanCursor is where the scan of the player table stood, so that a
	// restored finder continues its pass instead of starting over.
	ScanCursor string `json:"scan_cursor,omitempty"`
}

// SnapshotBucket is one bucket of a Snapshot.
type SnapshotBucket struct {
	Key string `json:"key"` // the stable bucket key, checked on restore
	MMR int    `json:"mmr"` // the MMR bucket index
	// Labels are the bucket's label attributes, by attribute name.
	Labels  map[string]cupid.Value `json:"labels,omitempty"`
	Size    int                    `json:"size"`
	Entries []SnapshotEntry        `json:"entries,omitempty"`
}

// SnapshotEntry is one cached entry of a SnapshotBucket.
type SnapshotEntry struct {
	PlayerID string `json:"player_id"`
	Entry
}

const snapshotVersion = 1

// Snapshot copies the cache.
func (f *Finder) Snapshot(now time.Time) Snapshot {
	s := Snapshot{
		Version:        snapshotVersion,
		CreatedAt:      now.UTC(),
		MinMMR:         f.s.cfg.MinMMR,
		MaxMMR:         f.s.cfg.MaxMMR,
		MmrBucketCount: f.s.cfg.MmrBucketCount,
		Multi:          f.s.cfg.AllowMultipleEntriesPerPlayer,
		Buckets:        make([]SnapshotBucket, len(f.buckets)),
		ScanCursor:     f.scan.cursor,
	}
	for bi, b := range f.buckets {
		sb := SnapshotBucket{Key: b.key, MMR: int(b.mmr), Size: b.size, Entries: make([]SnapshotEntry, b.n)}
		g := &f.groups[b.group]
		for si := range f.s.strategies {
			if sb.Labels == nil {
				sb.Labels = make(map[string]cupid.Value, len(f.s.strategies))
			}
			sb.Labels[f.s.attrs[f.s.strategies[si].attr].name] = f.labels[si].vals[g.key[si]]
		}
		for i := 0; i < b.n; i++ {
			sb.Entries[i] = SnapshotEntry{PlayerID: b.ids[i], Entry: f.entryAt(b, i)}
		}
		s.Buckets[bi] = sb
	}
	return s
}

// Restore puts a snapshot into an empty finder: the same buckets with the
// same sizes in the same order, each holding the same entries in the same
// order. The scan, if on, continues from the snapshot's cursor one tick
// after now, so it does not at once replay rows over the restored cache. Everything is checked first — the layout, every label and entry
// against the schema, every entry in the bucket its MMR and labels pick, no
// player twice where one entry per player is the rule, sizes within the
// cache — and a snapshot that fails any check changes nothing.
func (f *Finder) Restore(s Snapshot, now time.Time) error {
	c := &f.s.cfg
	switch {
	case len(f.buckets) > 0:
		return cupid.Conflict("snapshot", "the finder's cache is not empty")
	case s.Version != snapshotVersion:
		return invalid("snapshot.version", "unknown snapshot version %d", s.Version)
	case s.MinMMR != c.MinMMR || s.MaxMMR != c.MaxMMR || s.MmrBucketCount != c.MmrBucketCount:
		return cupid.Conflict("snapshot.mmr_bucket_count", "the snapshot was made for MMR %v..%v in %d buckets, the finder uses %v..%v in %d",
			s.MinMMR, s.MaxMMR, s.MmrBucketCount, c.MinMMR, c.MaxMMR, c.MmrBucketCount)
	case s.Multi != c.AllowMultipleEntriesPerPlayer:
		return cupid.Conflict("snapshot.multi", "the snapshot was made with allow_multiple_entries_per_player %v, the finder has %v", s.Multi, c.AllowMultipleEntriesPerPlayer)
	case len(s.Buckets) > c.MaxBuckets:
		return invalid("snapshot.buckets", "at most max_buckets (%d) buckets, got %d", c.MaxBuckets, len(s.Buckets))
	}
	total := 0
	keys := make(map[string]bool, len(s.Buckets))
	players := make(map[string]bool)
	for bi := range s.Buckets {
		sb := &s.Buckets[bi]
		field := fmt.Sprintf("snapshot.buckets[%d]", bi)
		if sb.Size < 1 || sb.Size > c.PlayerCacheSize || len(sb.Entries) > sb.Size {
			return invalid(field+".size", "must be from 1 to %d and hold the bucket's %d entries, got %d", c.PlayerCacheSize, len(sb.Entries), sb.Size)
		}
		total += sb.Size
		if total > c.PlayerCacheSize {
			return invalid(field+".size", "the buckets' sizes add up to more than player_cache_size (%d)", c.PlayerCacheSize)
		}
		if sb.MMR < 0 || sb.MMR >= c.MmrBucketCount {
			return invalid(field+".mmr", "must be from 0 to %d, got %d", c.MmrBucketCount-1, sb.MMR)
		}
		probe := f.bucketProbe(sb)
		if err := f.s.checkModel(&Model{PlayerID: "snapshot", Entries: []Entry{probe}}); err != nil {
			return prefixField(field+".labels", trimEntryField(err, "entries[0].attributes."))
		}
		if want := f.keyOf(sb.MMR, &probe); sb.Key != want {
			return invalid(field+".key", "%q does not match the bucket's MMR and labels (%q)", sb.Key, want)
		}
		if keys[sb.Key] {
			return invalid(field+".key", "%q appears twice", sb.Key)
		}
		keys[sb.Key] = true
		inBucket := make(map[string]bool, len(sb.Entries))
		for i := range sb.Entries {
			se := &sb.Entries[i]
			ef := fmt.Sprintf("%s.entries[%d]", field, i)
			if err := f.s.checkModel(&Model{PlayerID: se.PlayerID, Entries: []Entry{se.Entry}}); err != nil {
				return prefixField(ef, trimEntryField(err, "entries[0]."))
			}
			if m, _ := f.s.mmrIndex(se.MMR); m != sb.MMR {
				return invalid(ef+".mmr", "%v is not in MMR bucket %d", se.MMR, sb.MMR)
			}
			for si := range f.s.strategies {
				name := f.s.attrs[f.s.strategies[si].attr].name
				if labelKey(se.Attributes[name]) != labelKey(probe.Attributes[name]) {
					return invalid(ef+".attributes."+name, "is not the bucket's label")
				}
			}
			if inBucket[se.PlayerID] || !c.AllowMultipleEntriesPerPlayer && players[se.PlayerID] {
				return invalid(ef+".player_id", "%q is cached twice", se.PlayerID)
			}
			inBucket[se.PlayerID] = true
			players[se.PlayerID] = true
		}
	}
	f.scan.cursor = s.ScanCursor
	f.scan.next = now.Add(time.Duration(c.Scan.Tick))
	for bi := range s.Buckets {
		sb := &s.Buckets[bi]
		probe := f.bucketProbe(sb)
		t := f.locate(&probe)
		f.createBucketSized(&t, sb.Size)
		for i := range sb.Entries {
			se := &sb.Entries[i]
			f.insert(t.bucket, hashID(se.PlayerID), se.PlayerID, &se.Entry)
		}
	}
	return nil
}

// trimEntryField drops the "entries[0]." that checking one entry as a model
// puts in front of an error's field.
func trimEntryField(err error, prefix string) error {
	var e *cupid.Error
	if errors.As(err, &e) {
		c := *e
		c.Field = strings.TrimPrefix(c.Field, prefix)
		return &c
	}
	return err
}

// bucketProbe is an entry that belongs in the snapshot bucket: the middle
// of its MMR range, with its labels.
func (f *Finder) bucketProbe(sb *SnapshotBucket) Entry {
	return Entry{
		MMR:        f.s.cfg.MinMMR + (float64(sb.MMR)+0.5)*f.s.mmrWidth,
		Attributes: maps.Clone(sb.Labels),
	}
}
