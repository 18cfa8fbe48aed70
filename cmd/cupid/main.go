// Command cupid is the Cupid matchmaking server and its tools: serve runs
// the server, load drives a running one, ruleset checks and tries rulesets.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	if err := rootCmd().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "cupid:", err)
		os.Exit(1)
	}
}

func rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "cupid",
		Short:         "Cupid puts people together: real-time queues, async opponents, speed-dating rounds",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(serveCmd(), loadCmd(), rulesetCmd(), configCmd(), versionCmd(), keyCmd(), healthCmd())
	root.AddCommand(simCmd(), storeCmd())
	return root
}
