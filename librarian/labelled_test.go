package librarian

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/ctx0/ctx0/sessions"
)

// labelled is one conversation of the labelled set (testdata/labelled):
// what a careful person would file from it, and some of what they would
// not.
type labelled struct {
	Conversation string  `yaml:"conversation"`
	Source       string  `yaml:"source"`
	Keep         []label `yaml:"keep"`
	Skip         []label `yaml:"skip"`
}

type label struct {
	Kind  string `yaml:"kind"`
	Text  string `yaml:"text"`
	Why   string `yaml:"why"`
	Match string `yaml:"match"`
}

// filedItems are the items of an extraction by kind, as the labelled set
// names them, each as the text it is filed with. Corrections are filed as
// preferences, so they count as such.
func filedItems(x Extraction) map[string][]string {
	out := map[string][]string{}
	for kind, items := range map[string][]Item{
		"preference": append(append([]Item{}, x.Preferences...), x.Corrections...),
		"decision":   x.Decisions, "fact": x.Facts, "question": x.Questions,
		"milestone": x.Milestones, "insight": x.Insights,
	} {
		for _, it := range items {
			out[kind] = append(out[kind], it.Text+" "+it.Why)
		}
	}
	for _, r := range x.Resolutions {
		out["fix"] = append(out["fix"], r.Error+" → "+r.Fix)
	}
	for _, p := range x.People {
		out["person"] = append(out["person"], p.Name+": "+p.Note)
	}
	return out
}

// TestLabelled files every real conversation offline and scores what it
// filed against the labelled set: precision (what is filed is worth
// keeping) and recall (what is worth keeping is filed), by kind. It is a
// measurement recorded in BENCHMARKS.md, run on demand:
//
//	CTX0_LABELLED=1 go test ./librarian -run TestLabelled -v
//
// It fails when precision falls below 0.8, when recall of standing
// instructions, decisions and fixes falls below 0.5, or when an item the
// set says not to file is filed.
func TestLabelled(t *testing.T) {
	if os.Getenv("CTX0_LABELLED") == "" {
		t.Skip("set CTX0_LABELLED=1 to score the offline librarian against the labelled set")
	}
	files, err := filepath.Glob(filepath.Join("testdata", "labelled", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no labelled set: %v", err)
	}
	sets := map[string]labelled{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var l labelled
		if err := yaml.Unmarshal(data, &l); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		sets[l.Conversation] = l
	}
	st := ingestFiles(t, t.TempDir(), publishedFiles(t))
	convs, err := st.Conversations(t.Context(), sessions.Queued)
	if err != nil {
		t.Fatal(err)
	}
	type score struct{ filed, good, wanted, found int }
	scores := map[string]*score{}
	at := func(kind string) *score {
		if scores[kind] == nil {
			scores[kind] = &score{}
		}
		return scores[kind]
	}
	for _, c := range convs {
		l, ok := sets[c.Session]
		if !ok {
			t.Errorf("conversation %s has no labelled file", ConversationRef(c))
			continue
		}
		msgs, err := st.Messages(t.Context(), c.ID)
		if err != nil {
			t.Fatal(err)
		}
		filed := filedItems(Offline(c, msgs))
		for kind, texts := range filed {
			for _, text := range texts {
				at(kind).filed++
				worth := false
				for _, k := range l.Keep {
					if k.Kind == kind && matches(t, k.Match, text) {
						worth = true
					}
				}
				if worth {
					at(kind).good++
				} else {
					t.Logf("%s: not worth keeping: %s: %s", l.Source, kind, text)
				}
				for _, s := range l.Skip {
					if s.Kind == kind && matches(t, s.Match, text) {
						t.Errorf("%s: filed what a person would not (%s): %s: %s", l.Source, s.Why, kind, text)
					}
				}
			}
		}
		for _, k := range l.Keep {
			at(k.Kind).wanted++
			found := false
			for _, text := range filed[k.Kind] {
				found = found || matches(t, k.Match, text)
			}
			if found {
				at(k.Kind).found++
			} else {
				t.Logf("%s: missed: %s: %s", l.Source, k.Kind, k.Text)
			}
		}
	}
	var kinds []string
	var all, core score
	for kind, s := range scores {
		kinds = append(kinds, kind)
		all.filed, all.good, all.wanted, all.found = all.filed+s.filed, all.good+s.good, all.wanted+s.wanted, all.found+s.found
		if kind == "preference" || kind == "decision" || kind == "fix" {
			core.wanted, core.found = core.wanted+s.wanted, core.found+s.found
		}
	}
	sort.Strings(kinds)
	var b strings.Builder
	fmt.Fprintf(&b, "%-11s %6s %6s %9s %6s %6s %6s\n", "kind", "filed", "good", "precision", "wanted", "found", "recall")
	for _, kind := range kinds {
		s := scores[kind]
		fmt.Fprintf(&b, "%-11s %6d %6d %9s %6d %6d %6s\n", kind, s.filed, s.good, ratio(s.good, s.filed), s.wanted, s.found, ratio(s.found, s.wanted))
	}
	fmt.Fprintf(&b, "%-11s %6d %6d %9s %6d %6d %6s\n", "all", all.filed, all.good, ratio(all.good, all.filed), all.wanted, all.found, ratio(all.found, all.wanted))
	fmt.Fprintf(&b, "recall of preferences, decisions and fixes: %s (%d of %d)\n", ratio(core.found, core.wanted), core.found, core.wanted)
	t.Log("\n" + b.String())
	if all.filed > 0 && float64(all.good)/float64(all.filed) < 0.8 {
		t.Errorf("precision %s, want at least 0.8", ratio(all.good, all.filed))
	}
	if core.wanted > 0 && float64(core.found)/float64(core.wanted) < 0.5 {
		t.Errorf("recall of preferences, decisions and fixes %s, want at least 0.5", ratio(core.found, core.wanted))
	}
}

func matches(t *testing.T, expr, text string) bool {
	t.Helper()
	re, err := regexp.Compile("(?i)" + expr)
	if err != nil {
		t.Fatalf("labelled set: match %q: %v", expr, err)
	}
	return re.MatchString(text)
}

func ratio(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(a)/float64(b))
}
