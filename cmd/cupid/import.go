package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cupid-match/cupid/importer"
)

// importCmd is "cupid ruleset import --from flexmatch|nakama|openmatch FILE".
// The ruleset (or, for Open Match, the queues) goes to standard output or
// --out; the report, one line per part of the source, to standard error.
// The exit status is the verdict: 0 exact, 1 approximate, 2 refused.
func importCmd() *cobra.Command {
	var from, out string
	cmd := &cobra.Command{
		Use:   "import --from flexmatch|nakama|openmatch FILE",
		Short: "Write a Cupid ruleset from a FlexMatch rule set, a Nakama matchmaker query or an Open Match profile, with a report of what became what",
		Long: `Reads FILE in the source product's own format and writes the Cupid ruleset that matches the same players
(for Open Match, a configuration with one queue per pool), and a report naming, line by line of FILE, what each
part became and whether it is exact, approximate (how) or dropped (why).

Exit status: 0 exact, 1 approximate (a ruleset was written; read the report), 2 refused (nothing written).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if from == "" {
				return &exitStatus{code: 2, msg: "--from is required: one of " + strings.Join(importer.Sources, ", ")}
			}
			name := args[0]
			src, err := os.ReadFile(name)
			if err != nil {
				return &exitStatus{code: 2, msg: err.Error()}
			}
			res, err := importer.Import(from, src)
			if err != nil {
				return &exitStatus{code: 2, msg: "--from: " + err.Error()}
			}
			fmt.Fprint(cmd.ErrOrStderr(), res.Report.Text(name))
			outcome := res.Report.Outcome()
			if outcome == importer.OutcomeRefused {
				return &exitStatus{code: int(outcome)}
			}
			doc := res.Ruleset
			if res.Config != nil {
				doc = res.Config
			}
			if out != "" {
				if err := os.WriteFile(out, doc, 0o644); err != nil {
					return &exitStatus{code: 2, msg: err.Error()}
				}
			} else if _, err := cmd.OutOrStdout().Write(doc); err != nil {
				return &exitStatus{code: 2, msg: err.Error()}
			}
			if outcome != importer.OutcomeExact {
				return &exitStatus{code: int(outcome)}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the source product: flexmatch, nakama or openmatch")
	cmd.Flags().StringVarP(&out, "out", "o", "", "write the ruleset (or queues) to this file instead of standard output")
	return cmd
}
