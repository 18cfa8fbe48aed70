package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// Action is one operator action as the log keeps it.
type Action struct {
	At      time.Time `json:"at"`
	Who     string    `json:"who"`
	What    string    `json:"what"`
	Outcome string    `json:"outcome"`
	OK      bool      `json:"ok"`
}

// actionKind is the documents' kind of the action log: one document per
// action, its id the time it was taken (so id order is time order).
const actionKind = "dashboard-action"

// Bounds of the action log: the page shows the last keptActions; the store
// keeps at most storedActions, pruned in steps of pruneActions.
const (
	keptActions   = 100
	storedActions = 500
	pruneActions  = 100
)

// actionLog is the recent actions, newest last, kept in memory and, when
// the server has a document store, in it, so the log survives a restart
// and every node of a cluster writes to one log.
type actionLog struct {
	docs cupid.DocumentStore // nil: memory only
	log  *slog.Logger

	mu     sync.Mutex
	recent []Action
	stored int // documents in the store, as far as this node knows
	seq    int // makes two actions of the same nanosecond distinct
}

func newActionLog(ctx context.Context, docs cupid.DocumentStore, log *slog.Logger) *actionLog {
	l := &actionLog{docs: docs, log: log}
	if docs == nil {
		return l
	}
	ds, err := docs.Documents(ctx, actionKind, "", 0)
	if err != nil {
		log.Warn("dashboard: reading the action log failed; it starts empty", "err", err)
		return l
	}
	l.stored = len(ds)
	for _, d := range ds[max(0, len(ds)-keptActions):] {
		var a Action
		if json.Unmarshal(d.Body, &a) == nil {
			l.recent = append(l.recent, a)
		}
	}
	return l
}

// add notes an action; storing it is best effort (the action itself is
// done and logged whatever the store says).
func (l *actionLog) add(ctx context.Context, a Action) {
	l.mu.Lock()
	l.recent = append(l.recent, a)
	if len(l.recent) > keptActions {
		l.recent = slices.Delete(l.recent, 0, len(l.recent)-keptActions)
	}
	l.seq++
	id := fmt.Sprintf("%s-%06d", a.At.UTC().Format("20060102T150405.000000000Z"), l.seq%1000000)
	l.stored++
	prune := l.stored > storedActions
	l.mu.Unlock()
	if l.docs == nil {
		return
	}
	// The action has happened: the note is written even when the caller
	// went away.
	ctx = context.WithoutCancel(ctx)
	body, _ := json.Marshal(a)
	if err := l.docs.PutDocument(ctx, cupid.Fence{}, actionKind, id, body, a.At); err != nil {
		l.log.Warn("dashboard: storing an action failed", "err", err)
	}
	if prune {
		l.prune(ctx)
	}
}

// prune deletes the oldest documents beyond storedActions−pruneActions.
func (l *actionLog) prune(ctx context.Context) {
	ds, err := l.docs.Documents(ctx, actionKind, "", 0)
	if err != nil {
		l.log.Warn("dashboard: pruning the action log failed", "err", err)
		return
	}
	n := len(ds)
	for _, d := range ds[:max(0, len(ds)-(storedActions-pruneActions))] {
		if err := l.docs.DeleteDocument(ctx, cupid.Fence{}, actionKind, d.ID); err == nil {
			n--
		}
	}
	l.mu.Lock()
	l.stored = n
	l.mu.Unlock()
}

// list returns the recent actions, newest first: from the store when
// there is one (every node's actions), else from memory.
func (l *actionLog) list(ctx context.Context) []Action {
	var out []Action
	if l.docs != nil {
		ds, err := l.docs.Documents(ctx, actionKind, "", 0)
		if err == nil {
			for _, d := range ds[max(0, len(ds)-keptActions):] {
				var a Action
				if json.Unmarshal(d.Body, &a) == nil {
					out = append(out, a)
				}
			}
			slices.Reverse(out)
			return nonNilActions(out)
		}
		l.log.Warn("dashboard: reading the action log failed; showing this node's", "err", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	out = slices.Clone(l.recent)
	slices.Reverse(out)
	return nonNilActions(out)
}

func nonNilActions(a []Action) []Action {
	if a == nil {
		return []Action{}
	}
	return a
}
