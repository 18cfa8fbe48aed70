// Command cupid is the Cupid matchmaking server and its tools: serve runs
// the server, load drives a running one, ruleset checks and tries rulesets.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	if err := rootCmd().Execute(); err != nil {
		var ex *exitStatus
		if errors.As(err, &ex) {
			// The command has said everything already.
			if ex.msg != "" {
				fmt.Fprintln(os.Stderr, "cupid:", ex.msg)
			}
			os.Exit(ex.code)
		}
		fmt.Fprintln(os.Stderr, "cupid:", err)
		os.Exit(1)
	}
}

// exitStatus is an error that asks for a particular exit status, for
// commands whose status means more than success or failure (ruleset import:
// 0 exact, 1 approximate, 2 refused).
type exitStatus struct {
	code int
	msg  string
}

func (e *exitStatus) Error() string {
	if e.msg != "" {
		return e.msg
	}
	return fmt.Sprintf("exit status %d", e.code)
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
