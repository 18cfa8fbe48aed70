// Package rulesets keeps the rulesets a queue is given at run time, so they
// survive a restart and reach every node sharing the store, and each
// queue's version history for the dashboard. It stores and reads; package
// replace decides when a replacement is installed, the ticket service
// compiles it.
package rulesets

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// Kind is the document kind of the replacements, one per queue by name.
const Kind = "ruleset"

// Replacement is a queue's run-time ruleset as stored. Over is the hash of
// the configuration's ruleset it replaced: the replacement wins over the
// configuration while the configuration's ruleset is that one, and loses
// once the file changes (empty in replacements stored before Cupid recorded
// it: they win). Text is the document as it was put, so every node serves
// the same bytes; replacements stored before it existed have only Ruleset,
// the compact form.
type Replacement struct {
	Version int             `json:"version"`
	Ruleset json.RawMessage `json:"ruleset"`
	Text    string          `json:"text,omitempty"`
	Over    string          `json:"over,omitempty"`
}

// Source is the ruleset document the replacement holds.
func (r Replacement) Source() []byte {
	if r.Text != "" {
		return []byte(r.Text)
	}
	return r.Ruleset
}

// Decode reads a stored replacement.
func Decode(body []byte) (Replacement, error) {
	var r Replacement
	if err := json.Unmarshal(body, &r); err != nil {
		return Replacement{}, err
	}
	if len(r.Ruleset) == 0 && r.Text == "" {
		return Replacement{}, fmt.Errorf("no ruleset in the document")
	}
	return r, nil
}

// Hash identifies a ruleset document by its compact form, so that spacing
// alone is not a change.
func Hash(src []byte) string {
	sum := sha256.Sum256(compact(src))
	return hex.EncodeToString(sum[:])
}

// Precedence says, for a queue whose configuration's ruleset is
// configured, whether a stored replacement (a document's body) is used over
// it, and why, in words for the log and config check.
func Precedence(configured, stored []byte) (replacementWins bool, why string, err error) {
	r, err := Decode(stored)
	if err != nil {
		return false, "", err
	}
	switch {
	case r.Over == "":
		return true, fmt.Sprintf("the ruleset replaced at run time (version %d) is used over the configuration's: it was stored before Cupid recorded which configuration it replaced, so it wins until the next replacement", r.Version), nil
	case r.Over == Hash(configured):
		return true, fmt.Sprintf("the ruleset replaced at run time (version %d) is used over the configuration's, which has not changed since", r.Version), nil
	default:
		return false, fmt.Sprintf("the configuration's ruleset is used: it changed after the run-time replacement (version %d), which is set aside", r.Version), nil
	}
}

// Store keeps replacements and histories in a document store.
type Store struct {
	docs cupid.DocumentStore
}

// New returns a Store over docs.
func New(docs cupid.DocumentStore) *Store { return &Store{docs: docs} }

// Put stores a queue's replacement: src as it was put, over the
// configuration's ruleset whose hash is over.
func (s *Store) Put(ctx context.Context, queue string, version int, src []byte, over string, now time.Time) error {
	body, err := json.Marshal(Replacement{Version: version, Ruleset: json.RawMessage(compact(src)), Text: string(src), Over: over})
	if err != nil {
		return cupid.Invalid("ruleset", "%v", err)
	}
	return s.docs.PutDocument(ctx, cupid.Fence{}, Kind, queue, body, now)
}

// Stored is one queue's stored replacement as read: the document's body
// (for Precedence) and, when it decodes, the replacement.
type Stored struct {
	Queue string
	Body  []byte
	Replacement
	// Err says why the body does not decode.
	Err error
}

// All reads every queue's stored replacement, in queue order.
func (s *Store) All(ctx context.Context) ([]Stored, error) {
	docs, err := s.docs.Documents(ctx, Kind, "", 0)
	if err != nil {
		return nil, err
	}
	out := make([]Stored, len(docs))
	for i, d := range docs {
		out[i] = Stored{Queue: d.ID, Body: d.Body}
		out[i].Replacement, out[i].Err = Decode(d.Body)
	}
	return out, nil
}

// Kept bounds each queue's noted versions.
const Kept = 50

// versionKind is the document kind of the noted versions.
const versionKind = "ruleset_version"

// Version is one noted version of a queue's ruleset. A version is noted
// when it is put (through the API or the dashboard's editor), together with
// the version it replaced if that was not noted yet; the current version is
// also noted when the history is read, for rulesets that came from the
// configuration.
type Version struct {
	Version int       `json:"version"`
	At      time.Time `json:"at"`
	Ruleset string    `json:"ruleset"`
	// Via says how it was noted: "api", "editor" (put from the
	// dashboard), "seen" (found current when the history was read),
	// "canary" (a canary promoted); or a roll-out decision noted beside
	// the version it was taken under (NoteDecision): "shadow-start",
	// "shadow-stop", "canary-start", "canary-rollback",
	// "canary-promote", "canary-stop".
	Via string `json:"via"`
	// Reason is a decision's why; Ruleset is then the candidate's.
	Reason string `json:"reason,omitempty"`
	// id is the document's, so the oldest can be forgotten.
	id string
}

// versionID orders a queue's versions by id, so a listing after "queue/"
// returns them oldest first.
func versionID(queue string, v int) string { return fmt.Sprintf("%s/%010d", queue, v) }

// History returns a queue's noted versions, oldest first.
func (s *Store) History(ctx context.Context, queue string) ([]Version, error) {
	prefix := queue + "/"
	docs, err := s.docs.Documents(ctx, versionKind, prefix, Kept+1)
	if err != nil {
		return nil, err
	}
	var out []Version
	for _, d := range docs {
		if !strings.HasPrefix(d.ID, prefix) {
			break
		}
		var v Version
		if json.Unmarshal(d.Body, &v) == nil {
			v.id = d.ID
			out = append(out, v)
		}
	}
	return out, nil
}

// NoteCurrent notes cur unless it is the last noted version, and returns
// the history with it.
func (s *Store) NoteCurrent(ctx context.Context, queue string, cur Version) ([]Version, error) {
	hist, err := s.History(ctx, queue)
	if err != nil || (len(hist) > 0 && hist[len(hist)-1].Version == cur.Version) {
		return hist, err
	}
	if err := s.note(ctx, queue, cur); err != nil {
		return nil, err
	}
	return s.History(ctx, queue)
}

// NoteReplacement notes, at a put, the version being replaced (when the
// history lacks it) and the new one.
func (s *Store) NoteReplacement(ctx context.Context, queue string, old, v Version) error {
	if _, err := s.NoteCurrent(ctx, queue, old); err != nil {
		return err
	}
	return s.note(ctx, queue, v)
}

// NoteDecision notes a roll-out decision (v.Via and v.Reason) beside the
// version it was taken under: its id sorts after that version's and
// before the next, so the history reads in order. NoteCurrent does not
// take it for a new version: it carries the version it was taken under.
func (s *Store) NoteDecision(ctx context.Context, queue string, v Version) error {
	v.id = fmt.Sprintf("%s/%019d", versionID(queue, v.Version), v.At.UnixNano())
	return s.note(ctx, queue, v)
}

// note stores one version and forgets the oldest past Kept.
func (s *Store) note(ctx context.Context, queue string, v Version) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	id := v.id
	if id == "" {
		id = versionID(queue, v.Version)
	}
	if err := s.docs.PutDocument(ctx, cupid.Fence{}, versionKind, id, body, v.At); err != nil {
		return err
	}
	hist, err := s.History(ctx, queue)
	if err != nil {
		return err
	}
	for i := 0; i < len(hist)-Kept; i++ {
		if err := s.docs.DeleteDocument(ctx, cupid.Fence{}, versionKind, hist[i].id); err != nil {
			return err
		}
	}
	return nil
}

func compact(b []byte) []byte {
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return b
	}
	return out.Bytes()
}
