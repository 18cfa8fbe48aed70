package memstore

import (
	"context"
	"slices"
	"strings"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// The encounter store's operations, for Fail, FailNext and Block.
func init() {
	for _, op := range []string{"AddEncounters", "Encounters", "PutListEntry", "DeleteListEntry", "ListEntries", "EraseEncounters"} {
		ops[op] = true
	}
}

var _ cupid.EncounterStore = (*Store)(nil)

// encounterState is the in-memory cupid.EncounterStore. Its calls change
// state only once nothing can fail, so they need no undo.
type encounterState struct {
	// byPlayer holds each player's encounters, keyed by (other, ref).
	byPlayer map[string]map[[2]string]cupid.Encounter
	lists    map[[3]string]cupid.ListEntry // (player, kind, other)
}

func (e *encounterState) init() {
	if e.byPlayer == nil {
		e.byPlayer = map[string]map[[2]string]cupid.Encounter{}
		e.lists = map[[3]string]cupid.ListEntry{}
	}
}

// AddEncounters stores encounters; a meeting stored already is kept.
func (s *Store) AddEncounters(ctx context.Context, es []cupid.Encounter) (err error) {
	if err := s.begin(ctx, "AddEncounters"); err != nil {
		return err
	}
	defer func() { s.end(err) }()
	s.enc.init()
	for _, e := range es {
		e.At = e.At.UTC()
		m := s.enc.byPlayer[e.Player]
		if m == nil {
			m = map[[2]string]cupid.Encounter{}
			s.enc.byPlayer[e.Player] = m
		}
		k := [2]string{e.Other, e.Ref}
		if _, ok := m[k]; !ok {
			m[k] = e
		}
	}
	return nil
}

// Encounters returns a player's encounters since a time, newest first
// (equal times by other, then ref, as the SQL stores order them).
func (s *Store) Encounters(ctx context.Context, player string, since time.Time, limit int) (_ []cupid.Encounter, err error) {
	if err := s.begin(ctx, "Encounters"); err != nil {
		return nil, err
	}
	defer func() { s.end(err) }()
	var out []cupid.Encounter
	for _, e := range s.enc.byPlayer[player] {
		if !e.At.Before(since) {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b cupid.Encounter) int {
		if c := b.At.Compare(a.At); c != 0 {
			return c
		}
		if c := strings.Compare(a.Other, b.Other); c != 0 {
			return c
		}
		return strings.Compare(a.Ref, b.Ref)
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// PutListEntry writes a block or avoid entry.
func (s *Store) PutListEntry(ctx context.Context, e cupid.ListEntry) (err error) {
	if err := s.begin(ctx, "PutListEntry"); err != nil {
		return err
	}
	defer func() { s.end(err) }()
	s.enc.init()
	e.At = e.At.UTC()
	s.enc.lists[[3]string{e.Player, e.Kind, e.Other}] = e
	return nil
}

// DeleteListEntry deletes a block or avoid entry.
func (s *Store) DeleteListEntry(ctx context.Context, player, kind, other string) (err error) {
	if err := s.begin(ctx, "DeleteListEntry"); err != nil {
		return err
	}
	defer func() { s.end(err) }()
	delete(s.enc.lists, [3]string{player, kind, other})
	return nil
}

// ListEntries returns the entries of players' lists, ordered by player, kind, other.
func (s *Store) ListEntries(ctx context.Context, players []string) (_ []cupid.ListEntry, err error) {
	if err := s.begin(ctx, "ListEntries"); err != nil {
		return nil, err
	}
	defer func() { s.end(err) }()
	want := map[string]bool{}
	for _, p := range players {
		want[p] = true
	}
	var out []cupid.ListEntry
	for _, e := range s.enc.lists {
		if want[e.Player] {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b cupid.ListEntry) int {
		return strings.Compare(a.Player+"\x00"+a.Kind+"\x00"+a.Other, b.Player+"\x00"+b.Kind+"\x00"+b.Other)
	})
	return out, nil
}

// EraseEncounters deletes a player's history both ways and his lists.
func (s *Store) EraseEncounters(ctx context.Context, player string) (err error) {
	if err := s.begin(ctx, "EraseEncounters"); err != nil {
		return err
	}
	defer func() { s.end(err) }()
	delete(s.enc.byPlayer, player)
	for _, m := range s.enc.byPlayer {
		for k := range m {
			if k[0] == player {
				delete(m, k)
			}
		}
	}
	for k := range s.enc.lists {
		if k[0] == player {
			delete(s.enc.lists, k)
		}
	}
	return nil
}
