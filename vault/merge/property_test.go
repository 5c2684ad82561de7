package merge

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ctx0/ctx0/vault/entry"
)

// TestProperties merges generated entries, edited at random on both sides
// the way ctx0 and agents edit them, with every strategy, and checks:
// the result parses and holds no conflict marker; no field value, list
// item or body line added on a side is lost unless the other side removed
// it (or, for a scalar, it is a reported conflict); merging a version
// with itself or with the base gives that version byte for byte, even
// without the shortcut Entry takes; and swapping the sides and the winner
// gives the same content.
func TestProperties(t *testing.T) {
	for seed := range uint64(100) {
		g := &gen{r: rand.New(rand.NewPCG(seed, 42))}
		for _, strategy := range []Strategy{FieldMerge, AppendOnly, LastWriteWins, Rebuilt} {
			base := g.entry(strategy)
			ours, theirs := g.edit(base, "ours", strategy), g.edit(base, "theirs", strategy)
			name := fmt.Sprintf("seed %d, %s", seed, strategy)
			opt := Options{Strategy: strategy}
			got, cs, err := Entry(base, ours, theirs, opt)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			report := func(format string, args ...any) {
				t.Helper()
				t.Fatalf("%s: %s\nbase:\n%s\nours:\n%s\ntheirs:\n%s\nmerged:\n%s\nconflicts: %+v",
					name, fmt.Sprintf(format, args...), base, ours, theirs, got, cs)
			}
			checkMerge(t, base, ours, theirs, opt, got, cs)
			if !wholeWins(strategy) {
				for _, side := range [][]byte{ours, theirs} {
					if err := fieldsKept(base, side, got, cs); err != nil {
						report("%v", err)
					}
				}
			}
			for _, x := range [][]byte{ours, theirs} {
				if wholeWins(strategy) {
					break // without the shortcut, it picks by time
				}
				for _, in := range [][3][]byte{{base, x, x}, {base, base, x}, {base, x, base}} {
					if got := structural(t, in, opt); !bytes.Equal(got, x) {
						report("merge of %q, %q, %q without the shortcut =\n%s\nwant the changed side", in[0], in[1], in[2], got)
					}
				}
			}
			if !wholeWins(strategy) {
				swapped, _, _ := Entry(base, theirs, ours, Options{Strategy: strategy, Winner: Theirs, OursLabel: "theirs", TheirsLabel: "ours"})
				if a, b := content(t, got), content(t, swapped); !reflect.DeepEqual(a, b) {
					report("with the sides swapped:\n%s", swapped)
				}
			}
		}
	}
}

// structural merges by field and strategy, without the shortcut Entry
// takes for an unchanged side.
func structural(t *testing.T, in [3][]byte, opt Options) []byte {
	t.Helper()
	if err := opt.check(); err != nil {
		t.Fatal(err)
	}
	var es [3]*entry.Entry
	for i, data := range in {
		var err error
		if es[i], err = entry.Parse(data); err != nil {
			t.Fatal(err)
		}
	}
	m := &merger{opt: opt, eol: eolFor(in[1], in[2])}
	return m.entries(es[0], es[1], es[2])
}

// content is what a merge means regardless of layout: the fields, with
// lists as sets (the union keeps ours' repeated items, which differ when
// the sides swap), and the body.
func content(t *testing.T, data []byte) []any {
	t.Helper()
	e, err := entry.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	fields := e.Fields()
	for k, v := range fields {
		if l, ok := v.([]any); ok {
			s := make([]string, len(l))
			for i, x := range l {
				s[i] = fmt.Sprint(x)
			}
			slices.Sort(s)
			fields[k] = slices.Compact(s)
		}
	}
	return []any{fields, e.Body()}
}

// fieldsKept checks that every field value side changed from base is in
// merged: the value itself, a list's added items, a map's changed keys;
// or else that it, or a map it is in, is a reported conflict. updated and created may hold
// the other side's later or earlier time.
func fieldsKept(base, side, merged []byte, cs []Conflict) error {
	b, _ := entry.Parse(base)
	s, _ := entry.Parse(side)
	r, err := entry.Parse(merged)
	if err != nil {
		return err
	}
	bf, sf, rf := b.Fields(), s.Fields(), r.Fields()
	for k, sv := range sf {
		bv, bok := bf[k]
		rv, rok := rf[k]
		if err := kept(k, bv, bok, sv, rv, rok, cs); err != nil {
			return err
		}
	}
	return nil
}

func kept(path string, b any, bok bool, s any, r any, rok bool, cs []Conflict) error {
	if bok && same(b, s) {
		return nil
	}
	switch sv := s.(type) {
	case map[string]any:
		if rv, ok := r.(map[string]any); ok && rok {
			bm, _ := b.(map[string]any)
			for k, x := range sv {
				bx, bok := bm[k]
				rx, rok := rv[k]
				if err := kept(path+"."+k, bx, bok, x, rx, rok, cs); err != nil {
					return err
				}
			}
			return nil
		}
	case []any:
		if rv, ok := r.([]any); ok && rok {
			bl, _ := b.([]any)
			for _, x := range sv {
				if !slices.ContainsFunc(bl, eq(x)) && !slices.ContainsFunc(rv, eq(x)) {
					return fmt.Errorf("item %v added to %s is lost", x, path)
				}
			}
			return nil
		}
	}
	if rok && same(r, s) || path == entry.FieldUpdated || path == entry.FieldCreated {
		return nil
	}
	if slices.ContainsFunc(cs, func(c Conflict) bool { return c.Field == path || strings.HasPrefix(path, c.Field+".") }) {
		return nil
	}
	return fmt.Errorf("value %v of %s is lost, and no conflict says so", s, path)
}

func eq(x any) func(any) bool {
	return func(y any) bool { return same(x, y) }
}

// same compares decoded values as YAML, where NaN is NaN.
func same(x, y any) bool {
	a, err1 := yaml.Marshal(x)
	b, err2 := yaml.Marshal(y)
	return err1 == nil && err2 == nil && bytes.Equal(a, b)
}

// gen generates entries and edits of them. Values an edit adds are
// unique, so that a lost one would show.
type gen struct {
	r *rand.Rand
	n int
}

var (
	vocabulary = []string{"alpha", "beta", "gamma", "delta", "eps"}
	day0       = time.Date(2026, 1, 20, 9, 0, 0, 0, time.UTC)
)

func (g *gen) unique(side string) string {
	g.n++
	return fmt.Sprintf("%s-%d", side, g.n)
}

func (g *gen) word() string { return vocabulary[g.r.IntN(len(vocabulary))] }

func (g *gen) entry(strategy Strategy) []byte {
	e := entry.New()
	fields := []func(){
		func() { must(e.Set(entry.FieldTitle, "Title "+g.word())) },
		func() { must(e.Set(entry.FieldPinned, g.r.IntN(2) == 0)) },
		func() { must(e.Set("rating", g.r.IntN(5))) },
		func() { must(e.Set(entry.FieldCreated, day0)) },
		func() { must(e.Set(entry.FieldUpdated, day0)) },
		func() { must(e.Set(entry.FieldTags, slices.Compact([]string{g.word(), g.word(), g.word()}))) },
		func() {
			must(e.SetYAML("meta", fmt.Sprintf("owner: %s\nlimits:\n  daily: %d\n  weekly: 50", g.word(), g.r.IntN(9))))
		},
	}
	for _, i := range g.r.Perm(len(fields))[:1+g.r.IntN(len(fields))] {
		fields[i]()
	}
	var body []string
	if strategy == AppendOnly {
		body = append(body, "# Log", "", "Summary.", "")
		for d := range 1 + g.r.IntN(3) {
			body = append(body, fmt.Sprintf("## 2026-01-%02d", 10+d), "", "- "+g.word(), "")
		}
	} else {
		for range g.r.IntN(12) {
			switch g.r.IntN(4) {
			case 0:
				body = append(body, "")
			case 1:
				body = append(body, "## "+g.word())
			default:
				body = append(body, g.word()+" "+g.word())
			}
		}
	}
	e.SetBody(strings.Join(body, "\n"))
	return e.Bytes()
}

// edit makes a few edits to data on behalf of side.
func (g *gen) edit(data []byte, side string, strategy Strategy) []byte {
	e, err := entry.Parse(data)
	must(err)
	for range 1 + g.r.IntN(4) {
		keys := e.Keys()
		switch g.r.IntN(9) {
		case 0:
			must(e.Set(entry.FieldTitle, g.unique(side)))
		case 1:
			must(e.Set(entry.FieldPinned, !e.Pinned()))
		case 2:
			must(e.Set(entry.FieldUpdated, day0.Add(time.Duration(1+g.r.IntN(48))*time.Hour)))
		case 3:
			tags := e.Tags()
			if len(tags) > 0 && g.r.IntN(2) == 0 {
				i := g.r.IntN(len(tags))
				tags = slices.Delete(tags, i, i+1)
			} else {
				tags = append(tags, g.unique(side))
			}
			must(e.Set(entry.FieldTags, tags))
		case 4:
			v, _ := e.Get("meta")
			meta, _ := v.(map[string]any)
			if meta == nil {
				meta = map[string]any{}
			}
			meta[[]string{"owner", "team", side}[g.r.IntN(3)]] = g.unique(side)
			must(e.Set("meta", meta))
		case 5:
			if len(keys) > 0 {
				e.Delete(keys[g.r.IntN(len(keys))])
			}
		case 6:
			must(e.Set(g.unique(side), g.unique(side)))
		default:
			e.SetBody(g.editBody(e.Body(), side, strategy))
		}
	}
	return e.Bytes()
}

func (g *gen) editBody(body, side string, strategy Strategy) string {
	lines := strings.Split(body, "\n")
	if strategy == AppendOnly {
		if g.r.IntN(2) == 0 {
			// A new day, after every day there is.
			g.n++
			return body + fmt.Sprintf("\n## 2026-02-%02d\n\n- %s\n", 1+g.n%28, g.unique(side))
		}
	}
	i := g.r.IntN(len(lines) + 1)
	switch g.r.IntN(3) {
	case 0:
		lines = slices.Insert(lines, i, g.unique(side))
	case 1:
		if i < len(lines) {
			lines = slices.Delete(lines, i, i+1)
		}
	default:
		if i < len(lines) {
			lines[i] = g.unique(side)
		}
	}
	return strings.Join(lines, "\n")
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
