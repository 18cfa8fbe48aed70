package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/cupid-match/cupid/sim"
)

func tryCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "try SCENARIO.json",
		Short: "Run a ruleset over described tickets in virtual time; print the matches, their quality and why the rest wait",
		Long: `try reads a scenario — a ruleset and tickets with their attributes, latencies
and arrival times (seconds) — and runs the real engine over it in virtual
time, as the server would. It prints every match with its teams and quality
score, and for each ticket still waiting at the end, the rule that keeps it
waiting and when the next relaxation comes. Attribute values are numbers,
booleans, strings or lists of strings. A ticket's client_version (a field of
the ticket, or among its options or attributes) puts it in that version's
pool, as the server does: tickets of different versions never meet. See
engine/enginetest/testdata for examples.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			data, err := os.ReadFile(args[0])
			if err != nil {
				return err
			}
			sc, err := sim.ParseScenario(data)
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			rep, err := sim.RunScenario(sc)
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			fmt.Fprint(cmd.OutOrStdout(), rep.Text())
			return nil
		},
	}
}
