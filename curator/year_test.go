package curator_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctx0/ctx0/agent"
	"github.com/ctx0/ctx0/curator"
	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vault/entry"
	"github.com/ctx0/ctx0/vaulttest"
)

type yearClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *yearClock) Now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *yearClock) Set(t time.Time) { c.mu.Lock(); defer c.mu.Unlock(); c.t = t }

// TestSimulatedYear feeds a vault a year of daily sessions, generated:
// each files a fact and an episode through a run, as the librarian does; some repeat an earlier fact word for word, mention a person by
// name, state or repeat a preference, or leave scratch in the inbox. The
// curator runs at each session's end when due. After the year the
// context block is within its budget and holds the compacted summary,
// the summaries in use are few and short, no planted duplicate is left,
// mentions are linked, and old scratch and fading preferences are
// archived.
func TestSimulatedYear(t *testing.T) {
	if testing.Short() {
		t.Skip("a year of sessions")
	}
	t.Parallel()
	start := time.Date(2025, 1, 1, 9, 0, 0, 0, time.UTC)
	c := &yearClock{t: start}
	v := vaulttest.New(t, vault.WithClock(c.Now))
	people := []string{"Sarah Chen", "Diego Ramos", "Priya Natarajan"}
	for i, p := range people {
		name := "contacts/" + strings.ToLower(strings.ReplaceAll(p, " ", "-"))
		if _, err := v.Create(t.Context(), name, fmt.Appendf(nil, "---\ntitle: %s\ntype: contact\nsource: user\ncreated: 2025-01-01T09:00:00Z\nupdated: 2025-01-01T09:00:00Z\n---\nPerson number %d.\n", p, i)); err != nil {
			t.Fatal(err)
		}
	}
	days := 365
	if s := os.Getenv("CURATOR_YEAR_DAYS"); s != "" {
		days, _ = strconv.Atoi(s)
	}
	// The sessions of a week are filed by one run (a commit is slow on a
	// test machine's disk), each entry dated its day; the curator runs at
	// the end of the week's last session.
	var s *agent.Session
	for d := range days {
		now := start.Add(time.Duration(d) * 24 * time.Hour)
		c.Set(now)
		at := now.Format(time.RFC3339)
		if s == nil {
			var err error
			if s, err = agent.Begin(t.Context(), v, agent.Options{Kind: "librarian", Trigger: "simulated sessions", Now: c.Now}); err != nil {
				t.Fatal(err)
			}
		}
		write := func(name, fields, body string) {
			if err := s.Write(name+".md", fmt.Appendf(nil, "---\n%ssource: librarian\ncreated: %s\nupdated: %s\n---\n%s\n", fields, at, at, body)); err != nil {
				t.Fatal(err)
			}
		}
		fact := fmt.Sprintf("On day %d the build of service %d took %d seconds after change %d.", d, d%17, 30+d%50, d*7)
		if d%10 == 9 {
			// Planted: an earlier day's fact, word for word, under another name.
			e := d - 5
			fact = fmt.Sprintf("On day %d the build of service %d took %d seconds after change %d.", e, e%17, 30+e%50, e*7)
		}
		if d%6 == 0 {
			fact += fmt.Sprintf(" %s reviewed it.", people[d%len(people)])
		}
		write(fmt.Sprintf("knowledge/day-%03d", d), "title: Build on day "+fmt.Sprint(d)+"\ntype: fact\n", fact)
		write(fmt.Sprintf("episodes/%s", now.Format("2006-01/2006-01-02")), "title: "+now.Format("2006-01-02")+"\ntype: episode\n", fmt.Sprintf("## Session\n\nWorked on service %d.", d%17))
		switch {
		case d%7 == 0 && d%28 != 0:
			write(fmt.Sprintf("preferences/habit-%03d", d), "title: Habit of day "+fmt.Sprint(d)+"\ntype: preference\n", fmt.Sprintf("The user likes habit number %d.", d))
		case d%28 == 0:
			// The standing preference, seen again every four weeks.
			p := "preferences/short-commits"
			data, err := s.Read(t.Context(), p+".md")
			if err != nil {
				write(p, "title: Short commit subjects\ntype: preference\n", "The user wants commit subjects under 60 characters.")
				break
			}
			e, err := entry.Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			e.Set(entry.FieldUpdated, now)
			if err := s.Write(p+".md", e.Bytes()); err != nil {
				t.Fatal(err)
			}
		}
		if d%5 == 0 {
			write(fmt.Sprintf("inbox/scratch-%03d", d), "title: Scratch "+fmt.Sprint(d)+"\ntype: scratch\n", "maybe look at this later")
		}
		if d%7 != 6 && d != days-1 {
			continue
		}
		if _, err := s.Finish(t.Context(), "simulated sessions"); err != nil {
			t.Fatal(err)
		}
		s = nil
		c.Set(now.Add(time.Hour))
		if _, _, _, err := curator.RunIfDue(t.Context(), curator.Options{Vault: v, SessionEnd: true, Now: c.Now}); err != nil {
			t.Fatalf("day %d: %v", d, err)
		}
	}

	tree, err := v.TreeAt(t.Context(), "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	files, err := tree.List(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{}
	summaries := map[string]int{}
	for _, p := range files {
		name, ok := vault.NameOf(p)
		if !ok {
			continue
		}
		data, _ := tree.Read(t.Context(), p)
		e, err := entry.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		live := e.Archived().IsZero() && e.SupersededBy() == "" && !strings.HasPrefix(name, "archive/")
		if !live {
			continue
		}
		switch {
		case e.Type() == curator.SummaryType:
			summaries[strings.Join(e.Tags(), ",")]++
			if n := len(e.Body()); n > 2000 {
				t.Errorf("summary %s is %d bytes", name, n)
			}
		case e.Type() == "fact":
			k := strings.Join(strings.Fields(strings.ToLower(e.Body())), " ")
			if o, ok := texts[k]; ok {
				t.Errorf("planted duplicate left: %s and %s", o, name)
			}
			texts[k] = name
			if strings.Contains(e.Body(), "Sarah Chen reviewed it") && !strings.Contains(string(data), "contacts/sarah-chen") {
				t.Errorf("%s mentions Sarah Chen without a link:\n%s", name, data)
			}
		case strings.HasPrefix(name, "inbox/"):
			if age := c.Now().Sub(e.Updated()); age > 31*24*time.Hour {
				t.Errorf("stale scratch %s (%s old) not archived", name, age)
			}
		case strings.HasPrefix(name, "preferences/habit-"):
			if age := c.Now().Sub(e.Updated()); age > 61*24*time.Hour {
				t.Errorf("preference %s seen once %s ago not archived", name, age)
			}
		}
	}
	if _, ok := texts[strings.Join(strings.Fields(strings.ToLower("The user wants commit subjects under 60 characters.")), " ")]; ok {
		t.Error("a preference counted as a fact")
	}
	if summaries["compacted"] != 1 || summaries["incremental"] > 3 {
		t.Errorf("summaries in use after a year: %v", summaries)
	}
	b := contextBlock(t, v, c.Now)
	if b.Tokens > b.Budget {
		t.Errorf("context block of %d tokens, over its budget of %d", b.Tokens, b.Budget)
	}
	sections := map[string]int{}
	for _, it := range b.Items {
		sections[it.Section]++
	}
	if sections["context"] != 1 || sections["preferences"] == 0 {
		t.Errorf("block sections %v:\n%s", sections, b.Text)
	}
	if !strings.Contains(b.Text, "Short commit subjects") {
		t.Errorf("the standing preference is not in the block:\n%s", b.Text)
	}
	t.Logf("after %d days: %d files, summaries %v, block %d tokens, sections %v\n%s", days, len(files), summaries, b.Tokens, sections, b.Text)
}
