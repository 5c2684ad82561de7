package curator

import (
	"fmt"
	"strings"
)

// Schedule is what to install to run the curator without ctx0 ingest
// --watch: a cron line, and a systemd service and timer.
type Schedule struct {
	Cron    string `json:"cron"`
	Service string `json:"service"`
	Timer   string `json:"timer"`
}

// MakeSchedule returns the units that run `exe curator run --if-due` on
// the vault at root every hour: cheap when nothing is due, and the run
// itself decides what is (Config.Every, Config.SummarizeAfter).
func MakeSchedule(exe, root string) Schedule {
	cmd := shellQuote(exe) + " --vault " + shellQuote(root) + " curator run --if-due"
	return Schedule{
		Cron: "17 * * * * " + cmd + " >/dev/null 2>&1\n",
		Service: fmt.Sprintf(`[Unit]
Description=ctx0 curator: summaries, duplicates, links and stale entries of %s

[Service]
Type=oneshot
ExecStart=%s
`, root, cmd),
		Timer: `[Unit]
Description=Run the ctx0 curator when it is due

[Timer]
OnCalendar=hourly
RandomizedDelaySec=10m
Persistent=true

[Install]
WantedBy=timers.target
`,
	}
}

// shellQuote quotes s for sh when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:@%+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
