//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A syncService is a long-running ctx0 process that keeps a vault in sync
// with its remote: what runs on each machine of the two-machine tests.
// Another service is tested by adding it to syncServices.
type syncService struct {
	name string
	// args are the arguments after --vault DIR that start it, fetching
	// the remote every interval.
	args func(interval time.Duration) []string
}

var syncServices = []syncService{
	{name: "sync-watch", args: func(iv time.Duration) []string {
		return []string{"sync", "--watch", "--json", "--interval", iv.String()}
	}},
	{name: "daemon", args: func(iv time.Duration) []string {
		return []string{"daemon", "--json", "--interval", iv.String()}
	}},
}

// twoMachinesLoad is how much the two-machine tests write: a few rounds by
// default, for CI; CTX0_TWO_MACHINES=heavy (scripts/two-machines.sh) for
// the figures in BENCHMARKS.md.
func twoMachinesLoad() (rounds int, interval time.Duration) {
	if os.Getenv("CTX0_TWO_MACHINES") == "heavy" {
		return 30, 2 * time.Second
	}
	return 6, time.Second
}

// TestTwoMachines runs two vaults cloned from one bare remote, with
// automatic sync on and a sync service running on each, while both sides
// write at once: new memories, different fields of one shared entry, and
// files edited by hand. Once the writes stop, both vaults and the remote
// must come to the same tree, with every write in it and every commit in
// the history, and git must find all three repositories sound; through a
// remote that goes away and comes back, and through the service being
// killed with SIGKILL at random moments.
func TestTwoMachines(t *testing.T) {
	if testing.Short() {
		t.Skip("runs processes for several seconds")
	}
	for _, svc := range syncServices {
		t.Run(svc.name, func(t *testing.T) {
			t.Run("concurrent", func(t *testing.T) {
				m := newMachines(t, svc)
				m.startServices()
				m.writeRounds(0, m.rounds)
				m.finish()
			})
			t.Run("offline", func(t *testing.T) {
				m := newMachines(t, svc)
				m.startServices()
				third := m.rounds / 3
				m.writeRounds(0, third)
				m.takeRemoteAway()
				// Both sides keep writing, until each has seen a sync
				// fail for want of the remote.
				m.writeRounds(third, 2*third)
				m.waitOffline()
				m.bringRemoteBack()
				m.writeRounds(2*third, m.rounds)
				m.finish()
			})
			t.Run("killed", func(t *testing.T) {
				m := newMachines(t, svc)
				m.startServices()
				stop := make(chan struct{})
				killed := make(chan [2]int)
				go func() { killed <- m.killAtRandom(stop) }()
				m.writeRounds(0, m.rounds)
				close(stop)
				n := <-killed
				t.Logf("killed the service %d time(s) and automatic sync's background pusher %d time(s) with SIGKILL", n[0], n[1])
				m.finish()
				for _, v := range m.vaults {
					if out, err := m.ctx0(v.dir, "doctor").CombinedOutput(); err != nil {
						t.Errorf("%s: ctx0 doctor after the kills: %v\n%s", v.name, err, out)
					}
				}
			})
		})
	}
}

// machines is the test's world: a bare remote and two vaults cloned from
// it, each with its sync service.
type machines struct {
	t        *testing.T
	svc      syncService
	dir      string // holds the remote, the vaults and the services' logs
	remote   string
	home     string
	rounds   int
	interval time.Duration
	vaults   [2]*machine
	rng      *rand.Rand
	rngMu    sync.Mutex
}

// machine is one vault and what was written to it (by one goroutine at a
// time: writeRounds runs one writer per machine).
type machine struct {
	name, dir string
	svc       *exec.Cmd
	svcDone   chan struct{}
	starts    int
	commits   []string          // the commits ctx0 reported for this side's writes
	texts     []string          // text that must be in some entry
	fields    map[string]string // field of the shared entry -> value
	files     []string          // entries this side created by hand
	ownFacts  []string          // paths of the entries this side remembered
}

func newMachines(t *testing.T, svc syncService) *machines {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs the git binary to check the repositories")
	}
	dir := t.TempDir()
	if keep := os.Getenv("CTX0_TWO_MACHINES_KEEP"); keep != "" {
		// For a look after the test: the vaults, the remote and the
		// services' logs stay in a new folder under keep.
		var err error
		if dir, err = os.MkdirTemp(keep, "two-machines-"); err != nil {
			t.Fatal(err)
		}
		t.Logf("the machines are in %s", dir)
	}
	m := &machines{t: t, svc: svc, dir: dir, remote: filepath.Join(dir, "remote.git"), home: filepath.Join(dir, "home")}
	m.rounds, m.interval = twoMachinesLoad()
	seed := uint64(time.Now().UnixNano())
	if s, err := strconv.ParseUint(os.Getenv("CTX0_TWO_MACHINES_SEED"), 10, 64); err == nil {
		seed = s
	}
	t.Logf("random seed %d (CTX0_TWO_MACHINES_SEED)", seed)
	m.rng = rand.New(rand.NewPCG(seed, seed))
	for _, d := range []string{m.home, filepath.Join(dir, "logs")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	gitOut(t, dir, "init", "-q", "--bare", "-b", "main", m.remote)
	a := &machine{name: "alpha", dir: filepath.Join(dir, "alpha"), fields: map[string]string{}}
	b := &machine{name: "bravo", dir: filepath.Join(dir, "bravo"), fields: map[string]string{}}
	m.vaults = [2]*machine{a, b}
	m.run(dir, "init", a.dir)
	m.run(a.dir, "remote", "add", "origin", m.remote)
	cfg := filepath.Join(a.dir, ".ctx0", "config.yaml")
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString("\nsync:\n  auto: true\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	// Each machine approves automatic sync itself (ctx0 trust): the
	// clone's comes from the remote.
	m.run(a.dir, "trust")
	m.run(a.dir, "add", "shared", "--body", "An entry both machines edit.")
	// The first sync commits the configuration, so the clone has it too.
	m.run(a.dir, "sync")
	m.run(dir, "clone", m.remote, b.dir)
	m.run(b.dir, "trust")
	t.Cleanup(m.cleanup)
	return m
}

// ctx0 is a ctx0 command on the vault at dir: a real process, the one
// testscript.Main put on $PATH.
func (m *machines) ctx0(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("ctx0", append([]string{"--vault", dir}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+m.home, "GIT_CONFIG_NOSYSTEM=1")
	return cmd
}

// run runs a ctx0 command and returns its stdout; it fails the test if the
// command fails.
func (m *machines) run(dir string, args ...string) string {
	m.t.Helper()
	out, err := m.try(dir, args...)
	if err != nil {
		m.t.Fatal(err)
	}
	return out
}

// try runs a ctx0 command and returns its stdout, or an error that holds
// its output.
func (m *machines) try(dir string, args ...string) (string, error) {
	cmd := m.ctx0(dir, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("ctx0 %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.Bytes())
	}
	return string(out), nil
}

func (m *machines) intn(n int) int {
	m.rngMu.Lock()
	defer m.rngMu.Unlock()
	return m.rng.IntN(n)
}

// startServices starts the service on both machines.
func (m *machines) startServices() {
	m.t.Helper()
	for _, v := range m.vaults {
		if err := m.startService(v); err != nil {
			m.t.Fatal(err)
		}
	}
}

// startService starts the service on v, its output going to a log beside
// the vaults (a file inside one would be committed).
func (m *machines) startService(v *machine) error {
	v.starts++
	log, err := os.Create(filepath.Join(m.dir, "logs", fmt.Sprintf("%s-%s-%d.log", v.name, m.svc.name, v.starts)))
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := m.ctx0(v.dir, m.svc.args(m.interval)...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s on %s: %v", m.svc.name, v.name, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	v.svc, v.svcDone = cmd, done
	return nil
}

// kill9 kills the service of v with SIGKILL and waits until it is gone.
func (m *machines) kill9(v *machine) {
	v.svc.Process.Signal(syscall.SIGKILL)
	<-v.svcDone
}

// stopServices asks each service to stop, as Ctrl-C does, and waits.
func (m *machines) stopServices() {
	m.t.Helper()
	for _, v := range m.vaults {
		v.svc.Process.Signal(os.Interrupt)
	}
	for _, v := range m.vaults {
		select {
		case <-v.svcDone:
		case <-time.After(time.Minute):
			// Not a measure of speed: a service that ignores Ctrl-C never
			// stops, and the test must end.
			m.kill9(v)
			m.t.Errorf("%s: %s still running a minute after SIGINT", v.name, m.svc.name)
		}
	}
}

// killAtRandom, until stop is closed, kills one machine's service at a
// random moment with SIGKILL and starts it again at once; every other
// time, the background pushers running then too (the next write starts
// one again). It returns how many services and pushers it killed.
func (m *machines) killAtRandom(stop <-chan struct{}) (n [2]int) {
	for {
		select {
		case <-stop:
			return n
		case <-time.After(time.Duration(100+m.intn(900)) * time.Millisecond):
		}
		v := m.vaults[m.intn(2)]
		m.kill9(v)
		n[0]++
		if m.intn(2) == 0 {
			for _, pid := range m.pushers() {
				if syscall.Kill(pid, syscall.SIGKILL) == nil {
					n[1]++
				}
			}
		}
		if err := m.startService(v); err != nil {
			m.t.Error(err)
			return n
		}
	}
}

// writeRounds runs rounds from to to on both machines at once: in each,
// a machine remembers a new fact and sets a field of its own on the shared
// entry; every third round it edits one of its entries by hand, every
// fourth it creates an entry by hand. A write that fails fails the test.
func (m *machines) writeRounds(from, to int) {
	m.t.Helper()
	var wg sync.WaitGroup
	for _, v := range m.vaults {
		wg.Go(func() {
			for i := from; i < to; i++ {
				if err := m.writeRound(v, i); err != nil {
					m.t.Errorf("%s, round %d: %v", v.name, i, err)
					return
				}
				time.Sleep(time.Duration(m.intn(100)) * time.Millisecond)
			}
		})
	}
	wg.Wait()
	if m.t.Failed() {
		m.t.FailNow()
	}
}

func (m *machines) writeRound(v *machine, i int) error {
	text := fmt.Sprintf("%s fact %d: written while both machines write and sync.", strings.ToUpper(v.name[:1])+v.name[1:], i)
	name, err := m.write(v, "remember", text)
	if err != nil {
		return err
	}
	v.texts = append(v.texts, text)
	v.ownFacts = append(v.ownFacts, name+".md")
	field, value := fmt.Sprintf("%s_%d", v.name, i), fmt.Sprintf("%s-value-%d", v.name, i)
	if _, err := m.write(v, "set", "shared", field, value); err != nil {
		return err
	}
	v.fields[field] = value
	if i%3 == 2 {
		// A person's editor appends a line to an entry of this side's.
		p := filepath.Join(v.dir, filepath.FromSlash(v.ownFacts[m.intn(len(v.ownFacts))]))
		line := fmt.Sprintf("Edited by hand on %s in round %d.", v.name, i)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(p, append(data, []byte(line+"\n")...), 0o644); err != nil {
			return err
		}
		v.texts = append(v.texts, line)
	}
	if i%4 == 3 {
		name := fmt.Sprintf("knowledge/by-hand-%s-%d.md", v.name, i)
		line := fmt.Sprintf("Created by hand on %s in round %d.", v.name, i)
		data := fmt.Sprintf("---\ntitle: By hand %s %d\ntype: note\n---\n%s\n", v.name, i, line)
		if err := os.WriteFile(filepath.Join(v.dir, filepath.FromSlash(name)), []byte(data), 0o644); err != nil {
			return err
		}
		v.texts = append(v.texts, line)
		v.files = append(v.files, name)
	}
	return nil
}

// write runs a ctx0 write on v, keeps the commit it made, and returns the
// entry's name.
func (m *machines) write(v *machine, args ...string) (string, error) {
	out, err := m.try(v.dir, append(args, "--json")...)
	if err != nil {
		return "", err
	}
	var w writeResult
	if err := json.Unmarshal([]byte(out), &w); err != nil {
		return "", fmt.Errorf("ctx0 %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	if w.Commit.Hash == "" {
		return "", fmt.Errorf("ctx0 %s made no commit:\n%s", strings.Join(args, " "), out)
	}
	v.commits = append(v.commits, w.Commit.Hash)
	return w.Name, nil
}

// takeRemoteAway cuts both machines off from the remote, as a network
// that goes down does: their origin names a path where there is none. The
// remote itself stays where it is: a git-receive-pack running in it names
// its lock files by absolute path, and moving the repository while one
// holds its ref locks leaves them there, refusing every push after (no
// client can clear a lock on the remote).
func (m *machines) takeRemoteAway() {
	m.t.Helper()
	for _, v := range m.vaults {
		gitOut(m.t, v.dir, "remote", "set-url", "origin", m.remote+".away")
	}
}

func (m *machines) bringRemoteBack() {
	m.t.Helper()
	for _, v := range m.vaults {
		gitOut(m.t, v.dir, "remote", "set-url", "origin", m.remote)
	}
}

// waitOffline waits until a sync has failed on each machine since the
// remote went away.
func (m *machines) waitOffline() {
	m.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for _, v := range m.vaults {
		for {
			data, _ := os.ReadFile(filepath.Join(v.dir, ".ctx0", "state", "last-sync.json"))
			var rec struct{ Error string }
			if json.Unmarshal(data, &rec) == nil && rec.Error != "" {
				break
			}
			if time.Now().After(deadline) {
				m.t.Fatalf("%s: no sync failed in two minutes without the remote", v.name)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// finish, once the writes have stopped, waits for the machines to
// converge, stops the services and checks what both machines hold.
func (m *machines) finish() {
	m.t.Helper()
	m.converge()
	m.stopServices()
	m.check()
}

// converge waits until both vaults and the remote hold the same tree and
// nothing waits to be committed, and logs how long that took, in
// intervals. The deadline is generous: a loaded machine is slow, and the
// test is about arriving, not about speed (BENCHMARKS.md has the figures).
func (m *machines) converge() {
	m.t.Helper()
	start := time.Now()
	deadline := start.Add(60*m.interval + time.Minute)
	var last string
	for {
		state, ok := m.state()
		if ok {
			took := time.Since(start)
			m.t.Logf("converged %v after the writes stopped: %.1f interval(s) of %v", took.Round(10*time.Millisecond), float64(took)/float64(m.interval), m.interval)
			return
		}
		last = state
		if time.Now().After(deadline) {
			m.t.Fatalf("not converged %v after the writes stopped:\n%s%s%s", time.Since(start).Round(time.Second), last, m.services(), m.logTails())
		}
		time.Sleep(m.interval / 10)
	}
}

// services says whether each machine's service still runs: one that died
// syncs no more, and its log ends with why.
func (m *machines) services() string {
	var b strings.Builder
	for _, v := range m.vaults {
		select {
		case <-v.svcDone:
			fmt.Fprintf(&b, "%s: %s exited: %v\n", v.name, m.svc.name, v.svc.ProcessState)
		default:
			fmt.Fprintf(&b, "%s: %s running (pid %d)\n", v.name, m.svc.name, v.svc.Process.Pid)
		}
	}
	return b.String()
}

// logTails is the end of each service's log, which says why a vault
// stopped following the others; the logs go with the test's folder. A log
// with a panic shows it from its first line instead, since the end of a
// stack trace names no cause.
func (m *machines) logTails() string {
	logs, _ := filepath.Glob(filepath.Join(m.dir, "logs", "*.log"))
	var b strings.Builder
	for _, p := range logs {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		from, what := max(0, len(lines)-30), "last"
		for i, l := range lines {
			if strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") {
				from, what = i, "from the panic,"
				break
			}
		}
		to := min(len(lines), from+30)
		fmt.Fprintf(&b, "--- %s, %s %d of %d lines:\n%s\n", filepath.Base(p), what, to-from, len(lines), strings.Join(lines[from:to], "\n"))
	}
	return b.String()
}

// state says where the three trees stand, and whether they are one with
// nothing left uncommitted.
func (m *machines) state() (string, bool) {
	remote := tryGit(m.remote, "rev-parse", "main^{tree}")
	var b strings.Builder
	fmt.Fprintf(&b, "remote %s\n", remote)
	ok := remote != ""
	for _, v := range m.vaults {
		tree := tryGit(v.dir, "rev-parse", "HEAD^{tree}")
		status := tryGit(v.dir, "status", "--porcelain")
		fmt.Fprintf(&b, "%s %s\n%s", v.name, tree, status)
		ok = ok && tree == remote && status == ""
	}
	return b.String(), ok
}

// tryGit is git's trimmed output, or "" when it fails.
func tryGit(dir string, args ...string) string {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// check looks, on both machines, for every write of both, and every
// commit either reported; counts the entries; and runs git fsck on the
// three repositories.
func (m *machines) check() {
	t := m.t
	t.Helper()
	wantEntries := 1 // the shared entry
	for _, w := range m.vaults {
		wantEntries += len(w.ownFacts) + len(w.files)
	}
	for _, v := range m.vaults {
		files := strings.Fields(gitOut(t, v.dir, "ls-tree", "-r", "--name-only", "HEAD", "knowledge/"))
		var all strings.Builder
		n := 0
		for _, f := range files {
			if !strings.HasSuffix(f, ".md") {
				continue
			}
			n++
			data, err := os.ReadFile(filepath.Join(v.dir, filepath.FromSlash(f)))
			if err != nil {
				t.Fatal(err)
			}
			all.Write(data)
		}
		if n != wantEntries {
			t.Errorf("%s: %d entries in knowledge/, want %d", v.name, n, wantEntries)
		}
		shared, err := os.ReadFile(filepath.Join(v.dir, "knowledge", "shared.md"))
		if err != nil {
			t.Fatal(err)
		}
		history := map[string]bool{}
		for _, c := range strings.Fields(gitOut(t, v.dir, "rev-list", "HEAD")) {
			history[c] = true
		}
		for _, w := range m.vaults {
			for _, text := range w.texts {
				if !strings.Contains(all.String(), text) {
					t.Errorf("%s lacks %s's %q", v.name, w.name, text)
				}
			}
			for f, val := range w.fields {
				if !strings.Contains(string(shared), "\n"+f+": "+val+"\n") {
					t.Errorf("%s: the shared entry lacks %s's %s: %s:\n%s", v.name, w.name, f, val, shared)
				}
			}
			for _, c := range w.commits {
				if !history[c] {
					t.Errorf("%s: %s's commit %s is not in the history", v.name, w.name, c)
				}
			}
		}
		if out := gitOut(t, v.dir, "ls-files", ".ctx0/conflicts"); out != "" {
			t.Errorf("%s: conflicts kept aside, though no two writes touched the same field:\n%s", v.name, out)
		}
		gitOut(t, v.dir, "fsck", "--strict")
	}
	gitOut(t, m.remote, "fsck", "--strict")
}

// cleanup stops what the test started and may still run: the services,
// and the background pushers of automatic sync (which, after the remote
// was away, wait with back-off before trying again).
func (m *machines) cleanup() {
	for _, v := range m.vaults {
		if v.svc != nil {
			select {
			case <-v.svcDone:
			default:
				m.kill9(v)
			}
		}
	}
	for _, pid := range m.pushers() {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	for range 100 {
		if len(m.pushers()) == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// pushers lists the running background pushers of the two vaults, where
// /proc tells.
func (m *machines) pushers() []int {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var out []int
	for _, p := range procs {
		data, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(data, []byte("\x00--push-wanted")) || !bytes.Contains(data, []byte(m.dir)) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(filepath.Dir(p), "stat"))
		if _, rest, ok := bytes.Cut(stat, []byte(") ")); err != nil || !ok || bytes.HasPrefix(rest, []byte("Z")) {
			continue // a zombie has stopped already
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p))); err == nil {
			out = append(out, pid)
		}
	}
	return out
}
