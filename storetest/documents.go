package storetest

import (
	"fmt"
	"testing"

	cupid "github.com/cupid-match/cupid"
)

// RunDocuments runs the DocumentStore contract against stores made by open,
// each subtest on its own empty store.
func RunDocuments(t *testing.T, open func(t *testing.T) cupid.DocumentStore) {
	t.Run("PutReplaceDelete", func(t *testing.T) {
		s := open(t)
		for _, id := range []string{"b", "a", "c"} {
			put(t, s, "k", id, `{"v":"`+id+`"}`)
		}
		put(t, s, "other", "a", `{"other":true}`)
		put(t, s, "k", "a", `{"v":"a2"}`)
		if err := s.DeleteDocument(bg, cupid.Fence{}, "k", "c"); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteDocument(bg, cupid.Fence{}, "k", "never"); err != nil {
			t.Fatalf("deleting a missing document: %v", err)
		}
		eq(t, "k", docs(t, s, "k", "", 0), []string{`a={"v":"a2"}`, `b={"v":"b"}`})
		eq(t, "other", docs(t, s, "other", "", 0), []string{`a={"other":true}`})
		eq(t, "none", docs(t, s, "none", "", 0), nil)
	})
	t.Run("Pages", func(t *testing.T) {
		s := open(t)
		var all []string
		for i := range 7 {
			id := fmt.Sprintf("d%02d", 6-i) // stored in reverse, listed in id order
			put(t, s, "k", id, `{}`)
			all = append([]string{id + "={}"}, all...)
		}
		for _, c := range []struct {
			after string
			limit int
			want  []string
		}{
			{"", 0, all},
			{"", -1, all},
			{"", 3, all[:3]},
			{"d02", 3, all[3:6]},
			{"d02", 0, all[3:]},
			{"d025", 2, all[3:5]}, // a cursor need not be a stored id
			{"d06", 5, nil},
			{"", 100, all},
		} {
			eq(t, fmt.Sprintf("after %q limit %d", c.after, c.limit), docs(t, s, "k", c.after, c.limit), c.want)
		}
	})
	t.Run("Copies", func(t *testing.T) {
		s := open(t)
		body := []byte(`{"v":1}`)
		if err := s.PutDocument(bg, cupid.Fence{}, "k", "a", body, T0); err != nil {
			t.Fatal(err)
		}
		body[6] = '2'
		got, err := s.Documents(bg, "k", "", 0)
		if err != nil {
			t.Fatal(err)
		}
		got[0].Body[6] = '3'
		eq(t, "after changes outside", docs(t, s, "k", "", 0), []string{`a={"v":1}`})
	})
}

func put(t *testing.T, s cupid.DocumentStore, kind, id, body string) {
	t.Helper()
	if err := s.PutDocument(bg, cupid.Fence{}, kind, id, []byte(body), T0); err != nil {
		t.Fatalf("PutDocument(%s, %s): %v", kind, id, err)
	}
}

// docs lists documents as "id=body".
func docs(t *testing.T, s cupid.DocumentStore, kind, after string, limit int) []string {
	t.Helper()
	ds, err := s.Documents(bg, kind, after, limit)
	if err != nil {
		t.Fatalf("Documents(%s): %v", kind, err)
	}
	var out []string
	for _, d := range ds {
		out = append(out, d.ID+"="+string(d.Body))
	}
	return out
}
