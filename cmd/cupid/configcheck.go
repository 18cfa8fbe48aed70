package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cupid-match/cupid/config"
)

// errConfigProblems makes config check exit non-zero after it printed
// problems.
var errConfigProblems = errors.New("the configuration has problems")

func configCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Check configuration files",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "check FILE...",
		Short: "Load configuration files as serve does and report every problem, as FILE:LINE:COL: setting: message",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			bad := false
			for _, name := range args {
				if !checkConfig(cmd.OutOrStdout(), name) {
					bad = true
				}
			}
			if bad {
				return errConfigProblems
			}
			return nil
		},
	})
	return cmd
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
