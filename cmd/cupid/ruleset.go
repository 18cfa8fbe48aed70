package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/cupid-match/cupid/ruleset"
)

// errProblems makes the command exit non-zero after it printed problems.
var errProblems = errors.New("the ruleset has problems")

func rulesetCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ruleset",
		Short: "Check rulesets and try them on described tickets",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "check FILE...",
		Short: "Report every problem of ruleset files, as FILE:LINE:COL: path: reason",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			bad := false
			for _, name := range args {
				data, err := os.ReadFile(name)
				if err != nil {
					return err
				}
				if text := ruleset.CheckText(name, data); text != "" {
					fmt.Fprint(cmd.OutOrStdout(), text)
					bad = true
					continue
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: ok\n", name)
			}
			if bad {
				return errProblems
			}
			return nil
		},
	}, tryCmd(), importCmd(), shadowCmd(), canaryCmd())
	return cmd
}
