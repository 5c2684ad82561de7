package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/agent"
)

// demoVault runs ctx0 quickstart into a new folder and returns it, with
// the librarian's run and the tree the vault had before that run.
func demoVault(t *testing.T) (dir string, filed agent.Run, before string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("this test checks the vault with the git binary")
	}
	t.Setenv("HOME", t.TempDir())
	dir = filepath.Join(t.TempDir(), "demo")
	var stderr strings.Builder
	if code := run([]string{"quickstart", "--vault", dir}, strings.NewReader(""), io.Discard, &stderr); code != exitOK {
		t.Fatalf("quickstart: exit %d\n%s", code, stderr.String())
	}
	runs, err := agent.List(t.Context(), dir)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs after the quickstart: %v, %v", runs, err)
	}
	return dir, runs[0], gitIn(t, dir, "rev-parse", runs[0].Base+"^{tree}")
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// startUI runs ctx0 ui --no-open on the vault dir in this process until
// the test ends, and returns the sign-in address it printed.
func startUI(t *testing.T, dir string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	a := &app{stdin: strings.NewReader(""), stdout: pw, stderr: io.Discard, getenv: os.Getenv, now: time.Now}
	a.services = &container{a: a}
	root := a.rootCmd()
	root.SetArgs([]string{"--vault", dir, "ui", "--no-open", "--project", "bot0"})
	done := make(chan error, 1)
	go func() {
		err := root.ExecuteContext(ctx)
		a.services.closeAll()
		pw.CloseWithError(io.EOF)
		done <- err
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ctx0 ui: %v", err)
		}
	})
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("ctx0 ui printed no address: %v", err)
	}
	go io.Copy(io.Discard, pr)
	return strings.TrimSpace(line)
}

// TestUIQuickstartDemo is the "done when": after the quickstart,
// the page shows the entries, the librarian's run with its diff and the
// bundle for a question; undoing the run from the page leaves the vault
// as it was before the run, with one revert commit and git status clean.
func TestUIQuickstartDemo(t *testing.T) {
	dir, r, before := demoVault(t)
	commits := gitIn(t, dir, "rev-list", "--count", "HEAD")
	signIn := startUI(t, dir)
	if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/signin\?key=[0-9a-f]{64}$`).MatchString(signIn) {
		t.Fatalf("ctx0 ui printed %q", signIn)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	get := func(u string) string {
		t.Helper()
		res, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d\n%s", u, res.StatusCode, b)
		}
		return string(b)
	}
	base := strings.SplitN(signIn, "/signin", 2)[0]
	contains := func(what, body string, wants ...string) {
		t.Helper()
		for _, w := range wants {
			// Percent-escapes in either case: html/template writes them
			// in lower case.
			if !strings.Contains(strings.ToLower(body), strings.ToLower(w)) {
				t.Errorf("%s lacks %s\n%s", what, w, body)
			}
		}
	}
	contains("the entries", get(signIn), "Sarah Chen", "Staging deploys go out on Tuesdays", "Priya Patel", `<h2>Pinned</h2>`)
	contains("the timeline", get(base+"/review"), `href="/run?id=`+url.QueryEscape(r.ID)+`"`, "librarian run")
	runPage := get(base + "/run?id=" + url.QueryEscape(r.ID))
	contains("the run", runPage, "conversation 1 (quickstart-1@", `<span class="action added">added</span> knowledge/staging-deploys-go-out-on-tuesdays.md`,
		`<span class="add">&#43;title: Staging deploys go out on Tuesdays</span>`)
	ref := "/conversation?ref=" + url.QueryEscape("quickstart-1@2026-01-28T09:00:00Z")
	contains("the entry the run filed", get(base+"/entry?name=knowledge/staging-deploys-go-out-on-tuesdays"),
		`<a href="/run?id=`+url.QueryEscape(r.ID)+`">librarian run</a>`, `href="`+ref+`"`)
	contains("the run's source", runPage, `href="`+ref+`"`)
	contains("the conversation", get(base+ref), "Remember that staging deploys go out on Tuesdays.", "Congratulations on the beta.")
	contains("the question", get(base+"/ask?q="+url.QueryEscape("when do staging deploys go out?")),
		"What an agent gets", "knowledge/staging-deploys-go-out-on-tuesdays.md", "why: holds staging", "&lt;memory&gt;")

	token := regexp.MustCompile(`name="token" value="([0-9a-f]+)"`).FindStringSubmatch(runPage)[1]
	form := url.Values{"token": {token}, "run": {r.ID}}
	req, _ := http.NewRequest(http.MethodPost, base+"/undo", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(b), "Undone in commit") {
		t.Fatalf("undo: %d\n%s", res.StatusCode, b)
	}
	if got := gitIn(t, dir, "rev-parse", "HEAD^{tree}"); got != before {
		t.Errorf("after the undo the tree is %s, want %s (before the run)", got, before)
	}
	if got := gitIn(t, dir, "log", "-1", "--format=%s"); got != "revert run "+r.ID {
		t.Errorf("last commit %q, want the revert of the run", got)
	}
	if got := gitIn(t, dir, "rev-list", "--count", "HEAD"+"~1"); got != commits {
		t.Errorf("HEAD~1 has %s commits, want %s: the undo is one commit on top", got, commits)
	}
	if st := gitIn(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("git status after the undo:\n%s", st)
	}
	gitIn(t, dir, "fsck", "--strict")
	if strings.Contains(get(base+"/"), "Staging deploys go out on Tuesdays") {
		t.Error("the page still lists what the run filed")
	}
}
