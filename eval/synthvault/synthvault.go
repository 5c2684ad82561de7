// Package synthvault writes synthetic ctx0 vaults for benchmarks: entries
// spread over the standard folders, each with frontmatter and varied
// English-like text, committed with the git binary. It is test tooling, not
// part of ctx0.
package synthvault

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

var folders = []struct{ folder, typ string }{
	{"contacts", "contact"}, {"projects", "project"}, {"decisions", "decision"},
	{"knowledge", "fact"}, {"preferences", "preference"}, {"episodes/2026-01", "episode"},
	{"insights", "insight"}, {"milestones", "milestone"}, {"logs", "log"}, {"inbox", "scratch"},
	{"archive", "archive"},
}

// words is a small vocabulary with a long tail, so that search terms have
// realistic frequencies: common words everywhere, rare ones in few entries.
var words = strings.Fields(`the a of to and in for is on that with as by it this be are from at or an was
deploy deploying deployed server servers database index query queries search memory agent agents vault note
notes entry entries project projects decision decisions meeting meetings customer customers invoice billing
payment payments migration migrate schema table tables column latency throughput cache caching retry retries
timeout error errors failure incident postmortem rollback release releases version versions branch merge
review reviewer tests testing benchmark benchmarks profile memory leak goroutine channel mutex lock locks
kubernetes docker container image registry cluster node nodes pod pods secret secrets token tokens key keys
staging production preview environment config configuration flag flags feature features rollout canary
email calendar call calls slack message messages thread threads document documents spec specs design
architecture interface interfaces package packages module modules function functions method methods
python golang rust typescript javascript sqlite postgres redis kafka nginx linux macos windows terminal
editor vim emacs zed vscode obsidian markdown yaml json toml frontmatter git commit commits remote push pull
sarah sam priya diego mei omar lena jonas ana kenji fatima lucas nora ivan zoe
monday tuesday wednesday thursday friday weekend morning evening quarter sprint roadmap goal goals
prefers likes dislikes wants needs asked said decided chose rejected approved shipped fixed broke found
quickly slowly carefully always never usually often rarely important urgent minor major critical`)

// Generate writes a vault of n entries of about size bytes of body into dir
// (which must not exist) and commits it with the git binary. The same seed
// gives the same vault.
func Generate(dir string, n, size int, seed uint64) error {
	if _, err := os.Stat(dir); err == nil {
		return fmt.Errorf("%s exists; choose a new folder", dir)
	}
	r := rand.New(rand.NewPCG(seed, seed))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		f := folders[i%len(folders)]
		title := sentence(r, 3+r.IntN(4))
		name := fmt.Sprintf("%s/%s-%d", f.folder, strings.ReplaceAll(strings.ToLower(title), " ", "-"), i)
		when := base.Add(time.Duration(i) * time.Minute).Format(time.RFC3339)
		var b strings.Builder
		fmt.Fprintf(&b, "---\ntitle: %s\ntype: %s\ntags: [%s, %s]\nsource: librarian\ncreated: %s\nupdated: %s\n---\n",
			title, f.typ, pick(r), pick(r), when, when)
		for b.Len() < size {
			b.WriteString(sentence(r, 6+r.IntN(14)))
			b.WriteString(". ")
			if r.IntN(6) == 0 {
				b.WriteString("\n\n")
			}
		}
		b.WriteString("\n")
		p := filepath.Join(dir, filepath.FromSlash(name)+".md")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	for _, f := range []struct{ path, data string }{
		{".ctx0/config.yaml", "author:\n  name: ctx0\n  email: ctx0@localhost\n"},
		{".gitignore", ".ctx0/index.db\n.ctx0/index.db-*\n.ctx0/state/\n.ctx0/lock\n.ctx0/tmp/\n"},
	} {
		p := filepath.Join(dir, filepath.FromSlash(f.path))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(f.data), 0o644); err != nil {
			return err
		}
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "-A"},
		{"-c", "user.name=genvault", "-c", "user.email=genvault@localhost", "-c", "gc.auto=0", "commit", "-q", "-m", fmt.Sprintf("genvault: %d entries", n)},
		// Packed, as a vault that has lived a while is, so that no git
		// command in a benchmark stops to pack 10k loose objects.
		{"gc", "-q"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("git %s: %w", args[0], err)
		}
	}
	return nil
}

func pick(r *rand.Rand) string {
	// Squaring skews the choice toward the start of the list: a Zipf-like
	// spread of common and rare words.
	x := r.Float64()
	return words[int(x*x*float64(len(words)))]
}

func sentence(r *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = pick(r)
	}
	w[0] = strings.ToUpper(w[0][:1]) + w[0][1:]
	return strings.Join(w, " ")
}
