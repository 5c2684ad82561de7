package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is the version ctx0 was built at: the module version the go
// command stamped (a release tag, or a pseudo-version naming the commit),
// else "dev", with the commit and whether the tree was modified when the
// build recorded them but no module version. ctx0 --version, ctx0 version
// and the MCP server all report this one string.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	return buildVersion(bi)
}

// buildVersion is version for the build described by bi.
func buildVersion(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	var modified bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	v := "dev+" + rev[:min(12, len(rev))]
	if modified {
		v += ".dirty"
	}
	return v
}

// versionInfo is what ctx0 version --json prints.
type versionInfo struct {
	Version  string `json:"version"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

func (a *app) newVersionCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print ctx0's version",
		Long: `Print the version ctx0 was built at (the one its MCP server reports to
clients), the Go version it was built with and the platform. ctx0 --version
prints the first line alone.`,
		Example: `  ctx0 version
  ctx0 --version
  ctx0 version --json`,
		Args: args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			info := versionInfo{Version: version(), Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
			return a.out().result(info, func() error {
				_, err := fmt.Fprintf(a.stdout, "ctx0 %s\n%s %s\n", info.Version, info.Go, info.Platform)
				return err
			})
		},
	}
	a.jsonFlag(cmd, "print a JSON object")
	return cmd
}
