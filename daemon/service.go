package daemon

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ctx0/ctx0/internal/atomicfile"
)

// Service is the file that starts a vault's daemon with the user's
// session: a systemd user unit on Linux, a launchd agent on macOS.
type Service struct {
	// Name is the unit's name, or the agent's label.
	Name string
	// Path is where the file goes, and Content what it holds.
	Path    string
	Content []byte
	// Manager is the program that starts and stops the service
	// (systemctl or launchctl); Enable is the commands, each the
	// program's arguments, that enable and start it, and Disable those
	// that stop and disable it.
	Manager         string
	Enable, Disable [][]string
	// marker is the line that says ctx0 wrote the file, for this vault.
	marker string
}

// ServiceOptions say what a Service starts, where.
type ServiceOptions struct {
	// GOOS is the system: "linux" or "darwin".
	GOOS string
	// Home is the user's home folder, and ConfigHome $XDG_CONFIG_HOME
	// ("" for Home/.config).
	Home, ConfigHome string
	// Exe is the absolute path of the ctx0 program; Root the vault's.
	Exe, Root string
}

// ErrNoServiceManager is returned for a system without a service manager
// ctx0 knows (systemd's user units or launchd).
var ErrNoServiceManager = errors.New("daemon: no service manager known here (systemd user units on Linux, launchd on macOS); run ctx0 daemon in the background yourself")

// NewService returns the service file of the vault at o.Root. Its name
// comes from the vault's folder, so each vault has its own.
func NewService(o ServiceOptions) (Service, error) {
	if !filepath.IsAbs(o.Exe) || !filepath.IsAbs(o.Root) {
		return Service{}, fmt.Errorf("daemon: service for %s: want absolute paths of the program (%s) and the vault", o.Root, o.Exe)
	}
	id := serviceID(o.Root)
	marker := "Written by ctx0 daemon install for the vault " + o.Root + "; ctx0 daemon uninstall removes it."
	switch o.GOOS {
	case "linux":
		dir := o.ConfigHome
		if dir == "" {
			dir = filepath.Join(o.Home, ".config")
		}
		name := "ctx0-daemon-" + id + ".service"
		return Service{
			Name: name, Path: filepath.Join(dir, "systemd", "user", name),
			Content: systemdUnit(o, marker), Manager: "systemctl", marker: "# " + marker,
			Enable:  [][]string{{"--user", "daemon-reload"}, {"--user", "enable", "--now", name}},
			Disable: [][]string{{"--user", "disable", "--now", name}, {"--user", "daemon-reload"}},
		}, nil
	case "darwin":
		label := "dev.ctx0.daemon." + id
		path := filepath.Join(o.Home, "Library", "LaunchAgents", label+".plist")
		marker = "<!-- " + strings.ReplaceAll(marker, "--", "- -") + " -->"
		return Service{
			Name: label, Path: path, Content: launchdAgent(o, label, marker), Manager: "launchctl", marker: marker,
			Enable:  [][]string{{"load", "-w", path}},
			Disable: [][]string{{"unload", "-w", path}},
		}, nil
	}
	return Service{}, ErrNoServiceManager
}

// serviceID names a vault's service: its folder's name, in letters,
// digits and dashes, and a hash of its whole path, so that two vaults
// named alike in different places differ.
func serviceID(root string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(filepath.Base(root)) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	slug := strings.Trim(b.String(), "-")
	if len(slug) > 32 {
		slug = strings.Trim(slug[:32], "-")
	}
	h := fnv.New32a()
	h.Write([]byte(root))
	if slug == "" {
		return fmt.Sprintf("%08x", h.Sum32())
	}
	return fmt.Sprintf("%s-%08x", slug, h.Sum32())
}

// systemdUnit is the systemd user unit that runs the daemon, restarted
// if it fails.
func systemdUnit(o ServiceOptions, marker string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n", marker)
	fmt.Fprintf(&b, "[Unit]\nDescription=ctx0 daemon for %s\n\n", systemdEscape(o.Root))
	fmt.Fprintf(&b, "[Service]\nExecStart=%s --vault %s daemon\nRestart=on-failure\nRestartSec=10\n\n",
		systemdQuote(o.Exe), systemdQuote(o.Root))
	b.WriteString("[Install]\nWantedBy=default.target\n")
	return b.Bytes()
}

// systemdEscape keeps systemd from expanding specifiers (%) and
// variables ($) in a value.
func systemdEscape(s string) string {
	return strings.NewReplacer("%", "%%", "$", "$$").Replace(s)
}

// systemdQuote is s as one argument of ExecStart.
func systemdQuote(s string) string {
	s = systemdEscape(s)
	if !strings.ContainsAny(s, " \t\"'\\;") {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// launchdAgent is the launchd agent that runs the daemon at login,
// restarted if it fails, logging to the vault's state folder.
func launchdAgent(o ServiceOptions, label, marker string) []byte {
	log := filepath.Join(o.Root, filepath.FromSlash(stateDir), "daemon.log")
	var b bytes.Buffer
	b.WriteString(xml.Header)
	b.WriteString(`<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">` + "\n")
	b.WriteString(marker + "\n")
	b.WriteString("<plist version=\"1.0\">\n<dict>\n")
	str := func(s string) string {
		var e bytes.Buffer
		_ = xml.EscapeText(&e, []byte(s))
		return "<string>" + e.String() + "</string>"
	}
	fmt.Fprintf(&b, "  <key>Label</key>\n  %s\n", str(label))
	b.WriteString("  <key>ProgramArguments</key>\n  <array>\n")
	for _, a := range []string{o.Exe, "--vault", o.Root, "daemon"} {
		fmt.Fprintf(&b, "    %s\n", str(a))
	}
	b.WriteString("  </array>\n  <key>RunAtLoad</key>\n  <true/>\n")
	b.WriteString("  <key>KeepAlive</key>\n  <dict>\n    <key>SuccessfulExit</key>\n    <false/>\n  </dict>\n")
	fmt.Fprintf(&b, "  <key>StandardOutPath</key>\n  %s\n  <key>StandardErrorPath</key>\n  %s\n", str(log), str(log))
	b.WriteString("</dict>\n</plist>\n")
	return b.Bytes()
}

// Commands are the command lines that enable (or disable) a service, as a
// person would type them.
func (s Service) Commands(cmds [][]string) []string {
	var out []string
	for _, c := range cmds {
		out = append(out, s.Manager+" "+strings.Join(c, " "))
	}
	return out
}

// ErrNotOurs is returned for a service file ctx0 did not write: install
// does not overwrite it, uninstall does not remove it.
var ErrNotOurs = errors.New("not written by ctx0 daemon install for this vault")

// Install writes the service file and, if its manager is on PATH, enables
// and starts the service; started says whether it did (if not, the
// person runs s.Commands(s.Enable)). A file at s.Path that ctx0 did not
// write for this vault is left alone.
func (s Service) Install(ctx context.Context) (started bool, err error) {
	if err := s.check(true); err != nil {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o755); err != nil {
		return false, fmt.Errorf("daemon install: %w", err)
	}
	if err := atomicfile.Replace(s.Path, s.Content, 0o644); err != nil {
		return false, fmt.Errorf("daemon install: write %s: %w", s.Path, err)
	}
	return s.manage(ctx, s.Enable)
}

// Uninstall stops and disables the service, if its manager is on PATH,
// and removes its file; stopped says whether the manager was run. It
// refuses a file ctx0 did not write for this vault.
func (s Service) Uninstall(ctx context.Context) (stopped bool, err error) {
	if err := s.check(false); err != nil {
		return false, err
	}
	// Stopped first, from the file as it is: without it the manager no
	// longer knows what to stop.
	stopped, err = s.manage(ctx, s.Disable[:1])
	if err != nil {
		return stopped, err
	}
	if err := os.Remove(s.Path); err != nil {
		return stopped, fmt.Errorf("daemon uninstall: %w", err)
	}
	if stopped {
		_, err = s.manage(ctx, s.Disable[1:])
	}
	return stopped, err
}

// check makes sure the file at s.Path, if any, is one ctx0 wrote for
// this vault; missing is fine only when installing.
func (s Service) check(installing bool) error {
	data, err := os.ReadFile(s.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && installing:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("daemon uninstall: %s: not installed", s.Path)
	case err != nil:
		return fmt.Errorf("daemon: %w", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if line == s.marker {
			return nil
		}
	}
	return fmt.Errorf("daemon: %s: %w", s.Path, ErrNotOurs)
}

// manage runs the service manager with each of cmds, if it is on PATH;
// ran says whether it is.
func (s Service) manage(ctx context.Context, cmds [][]string) (ran bool, err error) {
	prog, err := exec.LookPath(s.Manager)
	if err != nil {
		return false, nil
	}
	for _, args := range cmds {
		out, err := exec.CommandContext(ctx, prog, args...).CombinedOutput()
		if err != nil {
			return true, fmt.Errorf("daemon: %s %s: %w: %s", s.Manager, strings.Join(args, " "), err, bytes.TrimSpace(out))
		}
	}
	return true, nil
}
