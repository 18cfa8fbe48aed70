package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is the release the binary was built as. Release builds set it
// with -ldflags "-X main.version=v1.2.3"; otherwise the module version of
// the build information is shown ("(devel)" for a build in the source
// tree).
var version = ""

func versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, the source revision and the Go version the binary was built with",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			info, ok := debug.ReadBuildInfo()
			if !ok {
				info = nil
			}
			writeVersion(cmd.OutOrStdout(), version, info)
			return nil
		},
	}
}

// writeVersion prints what the build information says: the version, the
// version control revision and time (and whether the tree had uncommitted
// changes), and the Go toolchain. A missing item is said to be unknown
// rather than left out, so scripts see the same lines every time.
func writeVersion(w io.Writer, override string, info *debug.BuildInfo) {
	v, rev, when, modified, goVersion := "unknown", "unknown", "unknown", "", runtime.Version()
	if info != nil {
		if info.Main.Version != "" {
			v = info.Main.Version
		}
		if info.GoVersion != "" {
			goVersion = info.GoVersion
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					modified = " (with uncommitted changes)"
				}
			}
		}
	}
	if override != "" {
		v = override
	}
	fmt.Fprintf(w, "cupid %s\n", v)
	fmt.Fprintf(w, "revision: %s%s\n", rev, modified)
	fmt.Fprintf(w, "time:     %s\n", when)
	fmt.Fprintf(w, "go:       %s %s/%s\n", goVersion, runtime.GOOS, runtime.GOARCH)
}
