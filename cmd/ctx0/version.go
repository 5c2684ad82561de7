package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"time"

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

// source is the commit a build was made from, as Go records it in every
// build from a git checkout (vcs.revision, vcs.time, vcs.modified): what a
// bug report needs.
type source struct {
	Commit   string    `json:"commit"`
	Time     time.Time `json:"commit_time"`
	Modified bool      `json:"modified"`
}

// buildSource is the commit of the build bi; false when Go recorded none
// (a test binary, or -buildvcs=false).
func buildSource(bi *debug.BuildInfo) (source, bool) {
	var s source
	for _, b := range bi.Settings {
		switch b.Key {
		case "vcs.revision":
			s.Commit = b.Value
		case "vcs.time":
			s.Time, _ = time.Parse(time.RFC3339, b.Value)
		case "vcs.modified":
			s.Modified = b.Value == "true"
		}
	}
	return s, s.Commit != ""
}

// String says the source in a line for people.
func (s source) String() string {
	line := "built from commit " + s.Commit
	if !s.Time.IsZero() {
		line += " of " + s.Time.UTC().Format("2006-01-02 15:04 MST")
	}
	if s.Modified {
		line += ", with uncommitted changes"
	}
	return line
}

// builtFrom is the source of this binary, if Go recorded it.
func builtFrom() (source, bool) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return source{}, false
	}
	return buildSource(bi)
}

// versionInfo is what ctx0 version --json prints.
type versionInfo struct {
	Version  string  `json:"version"`
	Source   *source `json:"source,omitempty"`
	Go       string  `json:"go"`
	Platform string  `json:"platform"`
}

// versionText is the version as ctx0 --version prints it: ctx0 and the
// version, then the commit it was built from when Go recorded it.
func versionText() string {
	text := "ctx0 " + version() + "\n"
	if s, ok := builtFrom(); ok {
		text += s.String() + "\n"
	}
	return text
}

func (a *app) newVersionCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print ctx0's version",
		Long: `Print the version ctx0 was built at (the one its MCP server reports to
clients), the Go version it was built with and the platform. ctx0 --version
prints the version and, for a build from a git checkout, the commit and its
date, as Go records them in the binary: what a bug report needs.`,
		Example: `  ctx0 version
  ctx0 --version
  ctx0 version --json`,
		Args: args(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			info := versionInfo{Version: version(), Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
			if s, ok := builtFrom(); ok {
				info.Source = &s
			}
			return a.out().result(info, func() error {
				_, err := fmt.Fprint(a.stdout, versionText())
				if err == nil {
					_, err = fmt.Fprintf(a.stdout, "%s %s\n", info.Go, info.Platform)
				}
				return err
			})
		},
	}
	a.jsonFlag(cmd, "print a JSON object")
	return cmd
}
