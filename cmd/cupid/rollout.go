package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"connectrpc.com/connect"
	"github.com/spf13/cobra"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
)

// rolloutFlags are what every `cupid ruleset shadow|canary` command needs:
// the server and an admin key.
type rolloutFlags struct {
	target, key, queue, reason string
}

func addRolloutFlags(cmd *cobra.Command, f *rolloutFlags) {
	cmd.Flags().StringVar(&f.target, "target", "http://"+DefaultAddr, "server base URL")
	cmd.Flags().StringVar(&f.key, "key", "", "admin server key, for a server with auth on (also read from CUPID_KEY)")
	cmd.Flags().StringVar(&f.queue, "queue", "", "the queue (required)")
	cmd.Flags().StringVar(&f.reason, "reason", "", "why, for the ruleset history")
	_ = cmd.MarkFlagRequired("queue")
}

func (f *rolloutFlags) client() cupidv1connect.RolloutServiceClient {
	if f.key == "" {
		f.key = os.Getenv("CUPID_KEY")
	}
	return cupidv1connect.NewRolloutServiceClient(withBearer(&http.Client{Timeout: 30 * time.Second}, f.key), f.target)
}

// printJSON prints an answer as the JSON API shows it.
func printJSON(w io.Writer, m proto.Message) error {
	b, err := protojson.MarshalOptions{Multiline: true, Indent: "  "}.Marshal(m)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// rolloutCall runs one call and prints its answer.
func rolloutCall[T any](f *rolloutFlags, call func(ctx context.Context, c cupidv1connect.RolloutServiceClient) (*T, error)) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		ctx, cancel := context.WithTimeout(cmd.Context(), 30*time.Second)
		defer cancel()
		out, err := call(ctx, f.client())
		if err != nil {
			return err
		}
		return printJSON(cmd.OutOrStdout(), any(out).(proto.Message))
	}
}

func shadowCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "shadow",
		Short: "Run a candidate ruleset beside a queue's live one on the same arrivals, committing nothing (docs/rollouts.md)",
	}
	var start rolloutFlags
	var skill string
	startCmd := &cobra.Command{
		Use:   "start --queue QUEUE RULESET.json",
		Short: "Start a queue's shadow",
		Args:  cobra.ExactArgs(1),
	}
	startCmd.RunE = func(cmd *cobra.Command, args []string) error {
		src, err := os.ReadFile(args[0])
		if err != nil {
			return err
		}
		return rolloutCall(&start, func(ctx context.Context, c cupidv1connect.RolloutServiceClient) (*cupidv1.StartShadowResponse, error) {
			return msgOf(c.StartShadow(ctx, connectReq(&cupidv1.StartShadowRequest{Queue: start.queue, Ruleset: string(src), SkillAttribute: skill, Reason: start.reason})))
		})(cmd, args)
	}
	addRolloutFlags(startCmd, &start)
	startCmd.Flags().StringVar(&skill, "skill", "mmr", "the attribute whose spread the skill gap measures")

	var report rolloutFlags
	reportCmd := &cobra.Command{Use: "report --queue QUEUE", Short: "The shadow's figures beside the live ones, per queue key", Args: cobra.NoArgs}
	reportCmd.RunE = rolloutCall(&report, func(ctx context.Context, c cupidv1connect.RolloutServiceClient) (*cupidv1.ShadowReportResponse, error) {
		return msgOf(c.ShadowReport(ctx, connectReq(&cupidv1.ShadowReportRequest{Queue: report.queue})))
	})
	addRolloutFlags(reportCmd, &report)

	var stop rolloutFlags
	stopCmd := &cobra.Command{Use: "stop --queue QUEUE", Short: "End a queue's shadow", Args: cobra.NoArgs}
	stopCmd.RunE = rolloutCall(&stop, func(ctx context.Context, c cupidv1connect.RolloutServiceClient) (*cupidv1.StopShadowResponse, error) {
		return msgOf(c.StopShadow(ctx, connectReq(&cupidv1.StopShadowRequest{Queue: stop.queue, Reason: stop.reason})))
	})
	addRolloutFlags(stopCmd, &stop)
	cmd.AddCommand(startCmd, reportCmd, stopCmd)
	return cmd
}

func canaryCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "canary",
		Short: "Send a share of a queue's new tickets to a candidate ruleset, with guards that roll it back (docs/rollouts.md)",
	}
	var start rolloutFlags
	var share, waitMargin, qualityMargin float64
	var window time.Duration
	var minSamples int
	startCmd := &cobra.Command{
		Use:   "start --queue QUEUE --share 0.1 RULESET.json",
		Short: "Start a queue's canary",
		Args:  cobra.ExactArgs(1),
	}
	startCmd.RunE = func(cmd *cobra.Command, args []string) error {
		src, err := os.ReadFile(args[0])
		if err != nil {
			return err
		}
		guard := &cupidv1.CanaryGuard{WaitMargin: waitMargin, QualityMargin: qualityMargin, WindowSeconds: window.Seconds(), MinSamples: int32(minSamples)}
		return rolloutCall(&start, func(ctx context.Context, c cupidv1connect.RolloutServiceClient) (*cupidv1.StartCanaryResponse, error) {
			return msgOf(c.StartCanary(ctx, connectReq(&cupidv1.StartCanaryRequest{Queue: start.queue, Ruleset: string(src), Share: share, Guard: guard, Reason: start.reason})))
		})(cmd, args)
	}
	addRolloutFlags(startCmd, &start)
	startCmd.Flags().Float64Var(&share, "share", 0.1, "the share of new tickets sent to the candidate (at most 0.5)")
	startCmd.Flags().Float64Var(&waitMargin, "wait-margin", 0.25, "roll back when the canary's wait p90 is longer than live's by more than this fraction (0: off)")
	startCmd.Flags().Float64Var(&qualityMargin, "quality-margin", 0.05, "roll back when the canary's mean quality is lower than live's by more than this (0: off)")
	startCmd.Flags().DurationVar(&window, "window", 10*time.Minute, "the window the guards compare over")
	startCmd.Flags().IntVar(&minSamples, "min-samples", 50, "matched tickets each side needs before a guard decides")

	var status, promote, rollback rolloutFlags
	statusCmd := &cobra.Command{Use: "status --queue QUEUE", Short: "The canary's state and both sides' figures", Args: cobra.NoArgs}
	statusCmd.RunE = rolloutCall(&status, func(ctx context.Context, c cupidv1connect.RolloutServiceClient) (*cupidv1.CanaryStatusResponse, error) {
		return msgOf(c.CanaryStatus(ctx, connectReq(&cupidv1.CanaryStatusRequest{Queue: status.queue})))
	})
	addRolloutFlags(statusCmd, &status)
	promoteCmd := &cobra.Command{Use: "promote --queue QUEUE", Short: "Make the candidate the queue's ruleset", Args: cobra.NoArgs}
	promoteCmd.RunE = rolloutCall(&promote, func(ctx context.Context, c cupidv1connect.RolloutServiceClient) (*cupidv1.PromoteCanaryResponse, error) {
		return msgOf(c.PromoteCanary(ctx, connectReq(&cupidv1.PromoteCanaryRequest{Queue: promote.queue, Reason: promote.reason})))
	})
	addRolloutFlags(promoteCmd, &promote)
	rollbackCmd := &cobra.Command{Use: "rollback --queue QUEUE", Short: "End the canary: new tickets all go live", Args: cobra.NoArgs}
	rollbackCmd.RunE = rolloutCall(&rollback, func(ctx context.Context, c cupidv1connect.RolloutServiceClient) (*cupidv1.RollbackCanaryResponse, error) {
		return msgOf(c.RollbackCanary(ctx, connectReq(&cupidv1.RollbackCanaryRequest{Queue: rollback.queue, Reason: rollback.reason})))
	})
	addRolloutFlags(rollbackCmd, &rollback)
	cmd.AddCommand(startCmd, statusCmd, promoteCmd, rollbackCmd)
	return cmd
}

func connectReq[T any](m *T) *connect.Request[T] { return connect.NewRequest(m) }

func msgOf[T any](res *connect.Response[T], err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	return res.Msg, nil
}
