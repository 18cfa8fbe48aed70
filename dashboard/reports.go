package dashboard

import (
	"net/http"
	"strconv"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/encounter"
	"github.com/cupid-match/cupid/service/encountersvc"
)

// The reports page: players' reports of each other (who reported whom,
// for what, when, with the note), the counts per reason and the players
// whose reports reach a reason's threshold, which marks them low
// priority. Reports are read a bounded page at a time
// (encountersvc.AllReports); the page pages on with next.

// reportsPage is the size of a page of reports.
const reportsPage = 200

// reports serves GET reports?after=: one page of reports with its
// summary.
func (s *server) reports(w http.ResponseWriter, r *http.Request) {
	if s.o.Encounters == nil {
		s.fail(w, r, cupid.NotFound("", "this server keeps no encounter history"))
		return
	}
	limit := reportsPage
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > encountersvc.MaxReportsPage {
			s.fail(w, r, cupid.Invalid("limit", "must be between 1 and %d, got %q", encountersvc.MaxReportsPage, v))
			return
		}
		limit = n
	}
	page, err := s.o.Encounters.AllReports(r.Context(), r.URL.Query().Get("after"), limit)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, struct {
		Reports    []encounter.Report      `json:"reports"`
		Summary    encounter.ReportSummary `json:"summary"`
		Thresholds map[string]int          `json:"thresholds"`
		Next       string                  `json:"next,omitempty"`
	}{page.Reports, page.Summary, page.Thresholds, page.Next})
}
