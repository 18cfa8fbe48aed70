package ticketsvc

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	cupid "github.com/cupid-match/cupid"
)

// The version history of each queue's ruleset, for the dashboard. The
// service keeps only the current ruleset; the history is the versions
// noted here, kept as documents (so they survive a restart) and bounded to
// the last KeptRulesetVersions of each queue.
//
// A version is noted when it is put (through the API or the dashboard's
// editor), together with the version it replaced if that was not noted
// yet; the current version is also noted when the history is read, for
// rulesets that came from the configuration.

// KeptRulesetVersions bounds each queue's noted versions.
const KeptRulesetVersions = 50

const rulesetVersionKind = "ruleset_version"

// RulesetVersion is one noted version of a queue's ruleset.
type RulesetVersion struct {
	Version int       `json:"version"`
	At      time.Time `json:"at"`
	Ruleset string    `json:"ruleset"`
	// Via says how it was noted: "editor" (put from the dashboard),
	// "seen" (found current when the history was read).
	Via string `json:"via"`
}

// versionID orders a queue's versions by id, so a listing after "queue/"
// returns them oldest first.
func versionID(queue string, v int) string { return fmt.Sprintf("%s/%010d", queue, v) }

// PutRulesetNoted replaces a queue's ruleset like PutRuleset, noting the
// new version as put from the dashboard's editor.
func (s *Service) PutRulesetNoted(ctx context.Context, name string, data []byte, expected int) (int, error) {
	return s.putRuleset(ctx, name, data, expected, "editor")
}

// noteReplacement notes, at a put, the version being replaced (when the
// history lacks it) and the new one.
func (s *Service) noteReplacement(ctx context.Context, name string, old RulesetVersion, v RulesetVersion) {
	if s.docs == nil {
		return
	}
	hist, err := s.versions(ctx, name)
	if err == nil && (len(hist) == 0 || hist[len(hist)-1].Version != old.Version) {
		err = s.noteVersion(ctx, name, old)
	}
	if err == nil {
		err = s.noteVersion(ctx, name, v)
	}
	if err != nil {
		s.log.Warn("the ruleset's version history was not updated", "queue", name, "version", v.Version, "err", err)
	}
}

// RulesetHistory returns a queue's noted versions, oldest first, with the
// current one noted first if it was not.
func (s *Service) RulesetHistory(ctx context.Context, name string) ([]RulesetVersion, error) {
	src, version, err := s.Ruleset(name)
	if err != nil {
		return nil, err
	}
	cur := RulesetVersion{Version: version, At: s.now().UTC(), Ruleset: string(src), Via: "seen"}
	if s.docs == nil {
		return []RulesetVersion{cur}, nil
	}
	hist, err := s.versions(ctx, name)
	if err != nil {
		return nil, err
	}
	if len(hist) == 0 || hist[len(hist)-1].Version != version {
		if err := s.noteVersion(ctx, name, cur); err != nil {
			return nil, err
		}
		if hist, err = s.versions(ctx, name); err != nil {
			return nil, err
		}
	}
	return hist, nil
}

func (s *Service) versions(ctx context.Context, name string) ([]RulesetVersion, error) {
	prefix := name + "/"
	docs, err := s.docs.Documents(ctx, rulesetVersionKind, prefix, KeptRulesetVersions+1)
	if err != nil {
		return nil, s.storeError(err)
	}
	var out []RulesetVersion
	for _, d := range docs {
		if !strings.HasPrefix(d.ID, prefix) {
			break
		}
		var v RulesetVersion
		if json.Unmarshal(d.Body, &v) == nil {
			out = append(out, v)
		}
	}
	return out, nil
}

// noteVersion stores one version and forgets the oldest past the bound.
func (s *Service) noteVersion(ctx context.Context, name string, v RulesetVersion) error {
	if s.docs == nil {
		return nil
	}
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := s.docs.PutDocument(ctx, cupid.Fence{}, rulesetVersionKind, versionID(name, v.Version), body, v.At); err != nil {
		return s.storeError(err)
	}
	hist, err := s.versions(ctx, name)
	if err != nil {
		return err
	}
	for i := 0; i < len(hist)-KeptRulesetVersions; i++ {
		if err := s.docs.DeleteDocument(ctx, cupid.Fence{}, rulesetVersionKind, versionID(name, hist[i].Version)); err != nil {
			return s.storeError(err)
		}
	}
	return nil
}
