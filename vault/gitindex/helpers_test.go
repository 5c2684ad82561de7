package gitindex

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitRepo is a temporary repository driven by the real git binary.
type gitRepo struct {
	tb  testing.TB
	dir string
}

func haveGit() bool {
	_, err := exec.LookPath("git")
	return err == nil
}

func requireGit(tb testing.TB) {
	tb.Helper()
	if !haveGit() {
		tb.Skip("git binary not found")
	}
}

func newRepo(tb testing.TB) *gitRepo {
	tb.Helper()
	requireGit(tb)
	r := &gitRepo{tb: tb, dir: tb.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *gitRepo) gitDir() string    { return filepath.Join(r.dir, ".git") }
func (r *gitRepo) indexPath() string { return filepath.Join(r.dir, ".git", "index") }

func (r *gitRepo) command(args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL=/dev/null",
		"HOME="+r.dir,
		"LC_ALL=C",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_AUTHOR_DATE=2020-01-01T00:00:00Z",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t", "GIT_COMMITTER_DATE=2020-01-01T00:00:00Z",
	)
	return cmd
}

// run runs git and returns its stdout, its stderr and its exit code.
func (r *gitRepo) run(args ...string) (string, string, int) {
	r.tb.Helper()
	cmd := r.command(args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return stdout.String(), stderr.String(), 0
	case errors.As(err, &exit):
		return stdout.String(), stderr.String(), exit.ExitCode()
	default:
		r.tb.Fatalf("git %s: %v", strings.Join(args, " "), err)
		return "", "", -1
	}
}

// git runs git and fails the test unless it succeeds.
func (r *gitRepo) git(args ...string) string {
	r.tb.Helper()
	out, errOut, code := r.run(args...)
	if code != 0 {
		r.tb.Fatalf("git %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

func (r *gitRepo) write(path, content string) {
	r.tb.Helper()
	full := filepath.Join(r.dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		r.tb.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		r.tb.Fatal(err)
	}
}

func (r *gitRepo) removeAll(path string) {
	r.tb.Helper()
	if err := os.RemoveAll(filepath.Join(r.dir, filepath.FromSlash(path))); err != nil {
		r.tb.Fatal(err)
	}
}

// commitFiles writes files and commits them.
func (r *gitRepo) commitFiles(msg string, files ...string) {
	r.tb.Helper()
	for i := 0; i+1 < len(files); i += 2 {
		r.write(files[i], files[i+1])
	}
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
}

func (r *gitRepo) readIndex() []byte {
	r.tb.Helper()
	b, err := os.ReadFile(r.indexPath())
	if err != nil {
		r.tb.Fatal(err)
	}
	return b
}

// extensionSigs lists the extension signatures of an index file.
func extensionSigs(tb testing.TB, data []byte) []string {
	tb.Helper()
	ix, err := parseIndex(data)
	if err != nil {
		tb.Fatalf("parse index: %v", err)
	}
	var sigs []string
	for _, x := range ix.exts {
		sigs = append(sigs, string(x.sig[:]))
	}
	return sigs
}

// extensionPayload returns the payload of extension sig, or nil.
func extensionPayload(tb testing.TB, data []byte, sig string) []byte {
	tb.Helper()
	ix, err := parseIndex(data)
	if err != nil {
		tb.Fatalf("parse index: %v", err)
	}
	for _, x := range ix.exts {
		if string(x.sig[:]) == sig {
			return x.payload(data)
		}
	}
	return nil
}

// debugBlocks splits `git ls-files -s --debug` output into one block per
// entry, keyed by "path stage".
func debugBlocks(out string) map[string]string {
	blocks := map[string]string{}
	var key string
	for line := range strings.SplitSeq(out, "\n") {
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, "  ") {
			meta, path, _ := strings.Cut(line, "\t")
			f := strings.Fields(meta)
			key = path + " " + f[len(f)-1]
		}
		blocks[key] += line + "\n"
	}
	return blocks
}

// spliceBytes is splice into memory: the new index, or nil if ops change
// nothing.
func spliceBytes(ix *indexFile, ops []op) ([]byte, error) {
	var out bytes.Buffer
	changed, err := splice(ix, ops, &out)
	if err != nil || !changed {
		return nil, err
	}
	return out.Bytes(), nil
}
