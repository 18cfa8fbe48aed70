package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// healthCmd is "cupid health": asks a server whether it is ready (its
// /readyz) and exits 0 only when it is. The image's HEALTHCHECK runs it:
// distroless has no shell or curl.
func healthCmd() *cobra.Command {
	var addr string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "health",
		Short: "Exit 0 when the server at --addr is ready (its /readyz answers 200), 1 otherwise",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			return checkHealth(ctx, addr, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&addr, "addr", DefaultAddr, "the server's address (host:port), over plain HTTP")
	cmd.Flags().DurationVar(&timeout, "timeout", 5*time.Second, "how long to wait for the answer")
	return cmd
}

// checkHealth asks http://addr/readyz and reports its answer.
func checkHealth(ctx context.Context, addr string, out io.Writer) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/readyz", nil)
	if err != nil {
		return fmt.Errorf("--addr: %w", err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("not ready: %w", err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
	text := strings.TrimSpace(string(body))
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("not ready: %s: %s", res.Status, text)
	}
	fmt.Fprintln(out, text)
	return nil
}
