package vault

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSyncConvergesLocal and TestSyncConvergesGitDaemon: two clones make
// 200 divergent edits each to the same entries (different fields, different
// places in the body), sync both ways, and must end identical, with every
// edit present, git fsck clean and no conflict markers.
func TestSyncConvergesLocal(t *testing.T) {
	remote := bareRemote(t)
	testConverge(t, remote, remote)
}

func TestSyncConvergesGitDaemon(t *testing.T) {
	remote := bareRemote(t)
	url := gitDaemon(t, filepath.Dir(remote)) + "/" + filepath.Base(remote)
	testConverge(t, remote, url)
}

func bareRemote(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs the git binary")
	}
	dir := filepath.Join(t.TempDir(), "remote.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v\n%s", err, out)
	}
	return dir
}

// sharedVault is a vault whose branch is on a bare remote, origin: the
// first machine of a sync test, from which the others clone.
func sharedVault(t *testing.T) (*Vault, string) {
	t.Helper()
	url := bareRemote(t)
	a := testVault(t)
	if err := a.AddRemote("origin", url); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Sync(t.Context(), SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	return a, url
}

// gitDaemon serves dir over git:// on 127.0.0.1 with pushes allowed, for
// the test's lifetime, and returns its base URL.
func gitDaemon(t *testing.T, dir string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("git", "daemon", "--reuseaddr", "--export-all", "--enable=receive-pack",
		"--base-path="+dir, "--listen=127.0.0.1", fmt.Sprintf("--port=%d", port), "--informative-errors", dir)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Skipf("git daemon: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	go bufio.NewScanner(stderr).Scan() // drain
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(10 * time.Second); ; {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("git daemon did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return "git://" + addr
}

func testConverge(t *testing.T, remoteDir, url string) {
	ctx := t.Context()
	a := testVault(t)
	const entries, edits = 20, 200
	for i := range entries {
		body := fmt.Sprintf("# Entry %d\n\nTop line.\n\nMiddle line.\n\nBottom line.\n", i)
		if _, _, err := a.Add(ctx, AddOptions{Name: fmt.Sprintf("knowledge/e%d", i), Meta: Meta{Type: "fact", Tags: []string{"shared"}}, Body: &body}); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.AddRemote("origin", url); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Sync(ctx, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	b, err := Clone(ctx, url, filepath.Join(t.TempDir(), "b"), WithClock(a.now))
	if err != nil {
		t.Fatal(err)
	}
	// Each side: fields of its own, tags of its own, and the body line of
	// its own, on every entry, 10 rounds.
	edit := func(v *Vault, side string, k int) {
		name := fmt.Sprintf("knowledge/e%d", k%entries)
		round := k / entries
		if _, _, err := v.Set(ctx, name, side+"_round", fmt.Sprint(round)); err != nil {
			t.Fatal(err)
		}
		e, err := v.read(name)
		if err != nil {
			t.Fatal(err)
		}
		body := e.Body()
		if side == "a" {
			body = strings.Replace(body, "Top line.", fmt.Sprintf("Top line. a%d", round), 1)
		} else {
			body = strings.Replace(body, "Bottom line.", fmt.Sprintf("Bottom line. b%d", round), 1)
		}
		if _, _, err := v.Write(ctx, name, body); err != nil {
			t.Fatal(err)
		}
		tags := append(e.Tags(), fmt.Sprintf("%s%d", side, round))
		if err := e.Set("tags", tags); err != nil {
			t.Fatal(err)
		}
		if _, _, err := v.Set(ctx, name, "tags", strings.Join(tags, ", ")); err != nil {
			t.Fatal(err)
		}
	}
	for k := range edits / 2 {
		edit(a, "a", k)
		edit(b, "b", k)
		if k%50 == 49 { // sync now and then, both ways, as machines do
			for _, v := range []*Vault{a, b} {
				if _, err := v.Sync(ctx, SyncOptions{}); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for _, v := range []*Vault{a, b, a} {
		if _, err := v.Sync(ctx, SyncOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if ha, hb := runGit(t, a, "rev-parse", "HEAD"), runGit(t, b, "rev-parse", "HEAD"); ha != hb {
		t.Fatalf("heads differ after sync: %s vs %s", ha, hb)
	}
	for _, v := range []*Vault{a, b} {
		checkClean(t, v)
	}
	for i := range entries {
		name := fmt.Sprintf("knowledge/e%d", i)
		data, err := os.ReadFile(a.path(name))
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		last := (edits/2 - 1) / entries
		for _, want := range []string{
			fmt.Sprintf("a_round: %d", last), fmt.Sprintf("b_round: %d", last),
			fmt.Sprintf("Top line. a%d", last), fmt.Sprintf("Bottom line. b%d", last),
			fmt.Sprintf("a%d", last), fmt.Sprintf("b%d", last), "Middle line.",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, text)
			}
		}
		if strings.Contains(text, "<<<<<<<") || strings.Contains(text, ">>>>>>>") {
			t.Errorf("%s has conflict markers:\n%s", name, text)
		}
		e, err := a.read(name)
		if err != nil {
			t.Fatalf("%s does not parse after merging: %v", name, err)
		}
		for r := 0; r <= last; r++ {
			for _, tag := range []string{fmt.Sprintf("a%d", r), fmt.Sprintf("b%d", r)} {
				if !strings.Contains(strings.Join(e.Tags(), ","), tag) {
					t.Errorf("%s lost tag %s: %v", name, tag, e.Tags())
				}
			}
		}
	}
	runGit(t, &Vault{root: remoteDir}, "fsck", "--strict")
}

// TestSyncConcurrentPushers: two machines sync at the same moment; the one
// that loses the push race fetches, merges and pushes again, and both end
// with everything.
func TestSyncConcurrentPushers(t *testing.T) {
	ctx := t.Context()
	a, url := sharedVault(t)
	b, err := Clone(ctx, url, filepath.Join(t.TempDir(), "b"))
	if err != nil {
		t.Fatal(err)
	}
	for round := range 5 {
		for _, v := range []*Vault{a, b} {
			if _, err := v.Remember(ctx, RememberOptions{Text: fmt.Sprintf("Round %d from %s.", round, v.Root())}); err != nil {
				t.Fatal(err)
			}
		}
		errs := make(chan error, 2)
		for _, v := range []*Vault{a, b} {
			go func() {
				_, err := v.Sync(ctx, SyncOptions{})
				errs <- err
			}()
		}
		for range 2 {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
	for _, v := range []*Vault{a, b} {
		if _, err := v.Sync(ctx, SyncOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if ha, hb := runGit(t, a, "rev-parse", "HEAD"), runGit(t, b, "rev-parse", "HEAD"); ha != hb {
		t.Fatalf("heads differ: %s vs %s", ha, hb)
	}
	if n := strings.Count(runGit(t, a, "ls-files", "knowledge/*.md"), "\n"); n != 10 {
		t.Errorf("%d memories after syncing, want 10", n)
	}
	checkClean(t, a)
	checkClean(t, b)
}

// TestSyncRemoteWithoutTheBranch: a remote that holds other branches but
// not this one is no failure: the fetch finds nothing to merge and the push
// creates the branch there.
func TestSyncRemoteWithoutTheBranch(t *testing.T) {
	ctx := t.Context()
	url := bareRemote(t)
	a := testVault(t)
	runGit(t, a, "push", "-q", url, "HEAD:refs/heads/elsewhere")
	if err := a.AddRemote("origin", url); err != nil {
		t.Fatal(err)
	}
	res, err := a.Sync(ctx, SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Pushed {
		t.Errorf("want the branch pushed, got %+v", res)
	}
	cmd := exec.Command("git", "--git-dir", url, "rev-parse", "refs/heads/"+res.Branch)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("remote lacks %s after sync: %v\n%s", res.Branch, err, out)
	}
}

// A sync in a long-running process (ctx0 sync --watch) must read what
// another process's sync fetched meanwhile into a packfile of its own: the
// watch and automatic sync's background pusher share one repository. Here
// b1 is the watch, opened once, and b2 the pusher.
func TestSyncSeesPacksOtherProcessesFetched(t *testing.T) {
	ctx := t.Context()
	a, url := sharedVault(t)
	dir := filepath.Join(t.TempDir(), "b")
	if _, err := Clone(ctx, url, dir); err != nil {
		t.Fatal(err)
	}
	b1, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	b2, err := Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	remember := func(v *Vault, text string) {
		t.Helper()
		if _, err := v.Remember(ctx, RememberOptions{Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	sync := func(v *Vault, what string) {
		t.Helper()
		if _, err := v.Sync(ctx, SyncOptions{RefuseRewrite: true}); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	var want []string
	for i := range 3 {
		remember(a, fmt.Sprintf("Round %d on a.", i))
		sync(a, "a's sync")
		fetcher := b2
		if i == 0 {
			fetcher = b1 // b1 reads the packs it has once, here
		}
		sync(fetcher, fmt.Sprintf("round %d: the first sync on b", i))
		remember(b1, fmt.Sprintf("Round %d on b.", i))
		if i == 2 {
			// The remote moves on too, so b1's fetch brings a pack.
			remember(a, "Round 2 on a, later.")
			sync(a, "a's sync")
			want = append(want, "round-2-on-a-later.md")
		}
		sync(b1, fmt.Sprintf("round %d: the long-running sync after another process's fetch", i))
		want = append(want, fmt.Sprintf("round-%d-on-a.md", i), fmt.Sprintf("round-%d-on-b.md", i))
	}
	for _, f := range want {
		if _, err := os.Stat(filepath.Join(dir, "knowledge", f)); err != nil {
			t.Error(err)
		}
	}
	checkClean(t, b1)
}

// A push that the remote refuses because the ref's lock is taken is
// retried as a race; when the lock stays (a git process on the remote was
// killed holding it, or its repository moved under it), the sync that
// gives up says how the remote refused, not only that it kept changing.
func TestSyncGivingUpSaysTheLastRefusal(t *testing.T) {
	ctx := t.Context()
	a, url := sharedVault(t)
	if _, err := a.Remember(ctx, RememberOptions{Text: "A fact the remote cannot take."}); err != nil {
		t.Fatal(err)
	}
	head, err := a.head()
	if err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(url, filepath.FromSlash(head.ref.String())) + ".lock"
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = a.Sync(ctx, SyncOptions{})
	if err == nil {
		t.Fatalf("sync pushed past the remote's %s", lock)
	}
	// The remote's report says only that the update failed (the lock's
	// name goes to its stderr): that much must reach the person.
	if !strings.Contains(err.Error(), "gave up") || !strings.Contains(err.Error(), "failed to update ref") {
		t.Errorf("sync's error does not say how the remote refused the last push: %v", err)
	}
}
