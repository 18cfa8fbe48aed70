package encountersvc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/encounter"
)

// Reports (rules in package encounter): each report is a document of kind
// ReportKind under "<digest of the player>/<digest of the match and the
// reporter>", so a player's reports are read together and a reporter
// reports a player once per match. Reports older than the rules' window
// count for nothing and are deleted when the player's reports are next
// read, so what is kept stays bounded by the window. When a report makes
// a reason reach its threshold, the player is marked low priority
// (Options.MarkLowPriority: the ratings' low-priority queue).

// ReportKind is the document kind of reports.
const ReportKind = "encounter-report"

// MarkLowPriorityFunc marks a player low priority, giving the reason.
type MarkLowPriorityFunc func(ctx context.Context, player, reason string) error

func digest(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:16])
}

// ReportPlayer records reporter's report of player from the match ref.
// Reporting the same player from the same match again changes nothing.
func (s *Service) ReportPlayer(ctx context.Context, reporter, player, ref, reason, note string) (encounter.Report, error) {
	if len(s.reports.Thresholds) == 0 {
		return encounter.Report{}, cupid.Errorf(cupid.CodeUnavailable, "", "reports are not configured on this server (encounters.reports)")
	}
	if err := encounter.CheckID("player_id", reporter); err != nil {
		return encounter.Report{}, err
	}
	h, err := s.History(ctx, reporter, 0)
	if err != nil {
		return encounter.Report{}, err
	}
	now := s.now()
	r, err := encounter.NewReport(h, s.reports, reporter, player, ref, reason, note, now)
	if err != nil {
		return encounter.Report{}, err
	}
	s.reportMu.Lock()
	defer s.reportMu.Unlock()
	have, err := s.playerReports(ctx, player, true)
	if err != nil {
		return encounter.Report{}, err
	}
	for _, o := range have {
		if o.Reporter == reporter && o.Ref == ref {
			return o, nil
		}
	}
	before := s.reports.Reporters(have, reason, now)
	body, err := json.Marshal(r)
	if err != nil {
		return encounter.Report{}, err
	}
	if err := s.docs.PutDocument(ctx, cupid.Fence{}, ReportKind, digest(player)+"/"+digest(ref, reporter), body, now); err != nil {
		return encounter.Report{}, s.storeError("written", err)
	}
	s.metrics.reports.WithLabelValues(reason).Inc()
	after := s.reports.Reporters(append(have, r), reason, now)
	// A mark that failed is tried again while the count is over the
	// threshold (as if it were reached from nothing).
	key := player + "\x00" + reason
	retry := s.unmarked[key] && s.reports.Crossed(reason, 0, after)
	if (s.reports.Crossed(reason, before, after) || retry) && s.markLowPriority != nil {
		if err := s.markLowPriority(ctx, player, encounter.LowPriorityReason(reason, after)); err != nil {
			// The report is kept; the mark is tried again by the next
			// report of the reason (it is still over the threshold).
			s.log.Error("encounters: marking a reported player low priority failed", "player", player, "reason", reason, "err", err)
			s.unmarked[key] = true
			return r, nil
		}
		delete(s.unmarked, key)
		s.metrics.lowPriority.WithLabelValues(reason).Inc()
	}
	return r, nil
}

// Reports lists the reports of a player within the window, oldest
// first: what an operator looks at.
func (s *Service) Reports(ctx context.Context, player string) ([]encounter.Report, error) {
	if err := encounter.CheckID("player_id", player); err != nil {
		return nil, err
	}
	return s.playerReports(ctx, player, false)
}

// MaxReportsPage bounds a page of AllReports.
const MaxReportsPage = 500

// ReportPage is one page of every player's reports, in the store's order
// (a player's reports together), and the summary of the page.
type ReportPage struct {
	Reports []encounter.Report
	Summary encounter.ReportSummary
	// Thresholds are the configured reasons with their thresholds.
	Thresholds map[string]int
	// Next, when not empty, is the after of the next page.
	Next string
}

// AllReports lists the reports within the window of every player, a page
// of at most limit (MaxReportsPage when 0 or above it) after the cursor
// after ("" for the first page): what the dashboard's reports page shows.
// A player's reports come together, so the summary's counts are exact
// for every player whose reports the page ends within.
func (s *Service) AllReports(ctx context.Context, after string, limit int) (ReportPage, error) {
	if s.docs == nil {
		return ReportPage{}, cupid.Errorf(cupid.CodeUnavailable, "", "reports need a document store")
	}
	if limit <= 0 || limit > MaxReportsPage {
		limit = MaxReportsPage
	}
	docs, err := s.docs.Documents(ctx, ReportKind, after, limit+1)
	if err != nil {
		return ReportPage{}, s.storeError("read", err)
	}
	page := ReportPage{Reports: []encounter.Report{}, Thresholds: s.reports.Thresholds}
	if len(docs) > limit {
		docs = docs[:limit]
		page.Next = docs[limit-1].ID
	}
	now := s.now()
	since := now.Add(-s.reports.Within)
	for _, d := range docs {
		var r encounter.Report
		if err := json.Unmarshal(d.Body, &r); err != nil {
			s.log.Error("encounters: a stored report cannot be read; it is skipped", "id", d.ID, "err", err)
			continue
		}
		if !r.At.Before(since) {
			page.Reports = append(page.Reports, r)
		}
	}
	page.Summary = s.reports.Summarize(page.Reports, now)
	return page, nil
}

// playerReports reads player's reports (at most encounter.MaxReportsRead)
// within the window; with prune, it deletes those older.
func (s *Service) playerReports(ctx context.Context, player string, prune bool) ([]encounter.Report, error) {
	if s.docs == nil {
		return nil, cupid.Errorf(cupid.CodeUnavailable, "", "reports need a document store")
	}
	prefix := digest(player) + "/"
	docs, err := s.docs.Documents(ctx, ReportKind, prefix, encounter.MaxReportsRead)
	if err != nil {
		return nil, s.storeError("read", err)
	}
	since := s.now().Add(-s.reports.Within)
	var out []encounter.Report
	for _, d := range docs {
		if !strings.HasPrefix(d.ID, prefix) {
			break
		}
		var r encounter.Report
		if err := json.Unmarshal(d.Body, &r); err != nil {
			s.log.Error("encounters: a stored report cannot be read; it is skipped", "id", d.ID, "err", err)
			continue
		}
		if r.At.Before(since) {
			if prune {
				if err := s.docs.DeleteDocument(ctx, cupid.Fence{}, ReportKind, d.ID); err != nil {
					s.log.Warn("encounters: deleting an old report failed; it is tried again later", "id", d.ID, "err", err)
				}
			}
			continue
		}
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b encounter.Report) int { return a.At.Compare(b.At) })
	return out, nil
}
