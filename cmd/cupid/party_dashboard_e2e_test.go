package main

import (
	"context"
	"testing"

	"github.com/cupid-match/cupid/client"
)

// The parties page in a real headless Chromium: a party formed through
// the API appears live with its members, then as queued.
func TestPartiesPageInTheBrowser(t *testing.T) {
	bctx := newDashboardBrowser(t)
	s := startServer(t, serveFlags{}) // the demo: squad5v5 takes parties of five
	b := openTab(t, bctx, s.url+"/dashboard/#/parties")
	c := client.New(s.url)
	ctx := context.Background()
	b.until(t, "the parties page, empty", `document.querySelector('#parties')?.textContent.includes('No party.')`)
	ann, _, err := c.CreateParty(ctx, "ann", map[string]any{"mmr": 1500}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ann.Invite(ctx, "bob"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Party(ann.ID(), "bob").Answer(ctx, true, map[string]any{"mmr": 1520}, nil); err != nil {
		t.Fatal(err)
	}
	row := `document.querySelector('tr.party[data-party=` + jsString(ann.ID()) + `]')`
	b.until(t, "ann's party with bob", row+`?.querySelector('.members')?.textContent === 'ann, bob'`)
	if _, err := ann.Queue(ctx, "squad5v5"); err != nil {
		t.Fatal(err)
	}
	b.until(t, "ann's party queued", row+`?.dataset.phase === 'queued'`)
	b.shot(t, "parties")
}
