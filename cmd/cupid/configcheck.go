package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cupid-match/cupid/config"
	"github.com/cupid-match/cupid/service/ticketsvc/rulesets"
)

// errConfigProblems makes config check exit non-zero after it printed
// problems.
var errConfigProblems = errors.New("the configuration has problems")

func configCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Check configuration files",
	}
	var f serveFlags
	check := &cobra.Command{
		Use:   "check FILE...",
		Short: "Load configuration files as serve does and report every problem, as FILE:LINE:COL: setting: message",
		Long: `check loads configuration files as serve does and reports every problem,
as FILE:LINE:COL: setting: message, or FILE: ok. With --data or --store it
also reads the rulesets replaced at run time that the store keeps, and says
for each queue whether serve would run the replacement or the file's.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			bad := false
			for _, name := range args {
				if !checkConfig(cmd.OutOrStdout(), name) {
					bad = true
					continue
				}
				if cmd.Flags().Changed("data") || cmd.Flags().Changed("store") {
					if err := rulesetPrecedence(cmd.Context(), cmd.OutOrStdout(), name, f); err != nil {
						return err
					}
				}
			}
			if bad {
				return errConfigProblems
			}
			return nil
		},
	}
	check.Flags().StringVar(&f.data, "data", "cupid-data", "the server's SQLite directory, to read its rulesets replaced at run time")
	check.Flags().StringVar(&f.store, "store", "sqlite", "sqlite (in --data) or a postgres:// URL, as for serve")
	cmd.AddCommand(check)
	return cmd
}

// rulesetPrecedence prints, for each queue of a good configuration file
// whose ruleset was replaced at run time, which ruleset serve would run
// (rulesets.Precedence), as FILE: queues[NAME]: words.
func rulesetPrecedence(ctx context.Context, w io.Writer, name string, f serveFlags) error {
	cfg, err := config.LoadConfig(name)
	if err != nil {
		return err
	}
	st, where, err := openStore(ctx, f)
	if err != nil {
		return err
	}
	defer st.Close()
	docs, err := st.Documents(ctx, "ruleset", "", 0)
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	stored := make(map[string][]byte, len(docs))
	for _, d := range docs {
		stored[d.ID] = d.Body
	}
	for i := range cfg.Queues {
		q := &cfg.Queues[i]
		body, ok := stored[q.Name]
		if !ok {
			fmt.Fprintf(w, "%s: queues[%s]: the configuration's ruleset is used (none was replaced at run time in %s)\n", name, q.Name, where)
			continue
		}
		_, why, err := rulesets.Precedence(q.RulesetJSON(), body)
		if err != nil {
			return fmt.Errorf("%s: stored ruleset of %s: %w", where, q.Name, err)
		}
		fmt.Fprintf(w, "%s: queues[%s]: %s\n", name, q.Name, why)
	}
	return nil
}

// checkConfig loads one file the way serve loads --config and prints its
// problems, one a line, or "FILE: ok". It reports whether the file is good.
func checkConfig(w io.Writer, name string) bool {
	cfg, err := config.LoadConfig(name)
	if err == nil && cfg.Server.TLS.CertFile != "" {
		// serve loads the pair before it listens; so does the check.
		if _, err := newCertReloaderFrom(cfg.Server.TLS.CertFile, cfg.Server.TLS.KeyFile, configTLS, nil); err != nil {
			fmt.Fprintf(w, "%s: %v\n", name, err)
			return false
		}
	}
	if err == nil {
		fmt.Fprintf(w, "%s: ok\n", name)
		return true
	}
	var ce *config.Error
	if errors.As(err, &ce) {
		// config.Error and config.Errors already read FILE:LINE:COL:
		// setting: message, one problem a line.
		fmt.Fprintln(w, err)
		return false
	}
	// A file that cannot be read: say so in the same shape.
	msg := strings.TrimPrefix(err.Error(), "config: ")
	if !strings.HasPrefix(msg, name) {
		msg = name + ": " + msg
	}
	fmt.Fprintln(w, msg)
	return false
}
