package index

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vaulttest"
)

// TestIncrementalEqualsRebuild makes random creates, edits, deletes and
// renames, through ctx0 and with plain file operations, asking the index
// questions in between, and checks that the index it kept up to date
// equals one rebuilt from the files.
func TestIncrementalEqualsRebuild(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			steps := 60
			if testing.Short() {
				steps = 20
			}
			v := vaulttest.New(t)
			ix := openIndex(t, v, nil)
			p := &propRun{t: t, v: v, ix: ix, r: rand.New(rand.NewPCG(seed, seed))}
			for i := range steps {
				p.step()
				switch p.r.IntN(4) {
				case 0:
					p.search()
				case 1:
					_, _ = v.Resolve(t.Context(), p.someName())
				}
				if i%15 == 14 || i == steps-1 {
					p.compare()
				}
			}
		})
	}
}

type propRun struct {
	t  *testing.T
	v  *vault.Vault
	ix *Index
	r  *rand.Rand
	n  int
}

var vocabulary = strings.Fields("alpha beta gamma delta deploy staging sarah project roadmap kafka café 数据库 rollout")

func (p *propRun) text(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = vocabulary[p.r.IntN(len(vocabulary))]
	}
	return strings.Join(w, " ")
}

// names lists the entries on disk.
func (p *propRun) names() []string {
	var out []string
	_ = p.v.Walk(p.t.Context(), func(name string, _ os.FileInfo) error {
		out = append(out, name)
		return nil
	})
	return out
}

func (p *propRun) someName() string {
	ns := p.names()
	if len(ns) == 0 || p.r.IntN(5) == 0 {
		return "nowhere/" + p.text(1)
	}
	return ns[p.r.IntN(len(ns))]
}

// body is a body with links to entries that may or may not exist.
func (p *propRun) body() string {
	b := p.text(4 + p.r.IntN(8))
	switch p.r.IntN(4) {
	case 0:
		b += " see [[" + p.someName() + "]]"
	case 1:
		b += " and [[" + vault.Slug(p.someName()) + "|label]]"
	case 2:
		b += " [x](../" + p.someName() + ".md)"
	}
	return b + "\n"
}

func (p *propRun) path(name string) string {
	return filepath.Join(p.v.Root(), filepath.FromSlash(name)+".md")
}

func (p *propRun) step() {
	ctx := p.t.Context()
	p.n++
	folders := []string{"knowledge", "contacts", "projects", "new-folder", "deep/er"}
	folder := folders[p.r.IntN(len(folders))]
	k := p.r.IntN(19)
	if k >= 15 {
		k = k % 2 * 6 // creates twice as often: through ctx0 (0) or as files (6)
	}
	switch k {
	case 0:
		_, _, _ = p.v.Add(ctx, vault.AddOptions{Name: fmt.Sprintf("%s/e%d", folder, p.n),
			Meta: vault.Meta{Type: "note", Aliases: []string{"Alias " + p.text(1) + fmt.Sprint(p.n)}, Tags: []string{p.text(1)}},
			Body: ptr(p.body())})
	case 1:
		_, _ = p.v.Remember(ctx, vault.RememberOptions{Text: p.text(6)})
	case 2:
		_, _, _ = p.v.Write(ctx, p.someName(), p.body())
	case 3:
		_, _, _ = p.v.Set(ctx, p.someName(), "title", p.text(2))
	case 4:
		_, _, _ = p.v.Rename(ctx, p.someName(), fmt.Sprintf("%s/r%d", folder, p.n))
	case 5:
		_, _, _ = p.v.Remove(ctx, p.someName(), p.r.IntN(2) == 0)
	case 6: // a new file
		p.write(fmt.Sprintf("%s/f%d", folder, p.n), fmt.Sprintf("---\ntitle: %s\naliases: [%s]\n---\n%s", p.text(2), p.text(1), p.body()))
	case 7: // an edit in place that keeps the size
		if n := p.someName(); !strings.HasPrefix(n, "nowhere/") {
			if data, err := os.ReadFile(p.path(n)); err == nil && len(data) > 0 {
				data[len(data)-2] ^= 1
				_ = os.WriteFile(p.path(n), data, 0o644)
			}
		}
	case 8:
		_ = os.Remove(p.path(p.someName()))
	case 9: // a rename with plain tools
		from := p.someName()
		to := p.path(fmt.Sprintf("%s/m%d", folder, p.n))
		_ = os.MkdirAll(filepath.Dir(to), 0o755)
		_ = os.Rename(p.path(from), to)
	case 10: // an editor that saves by rename
		if n := p.someName(); !strings.HasPrefix(n, "nowhere/") {
			tmp := p.path(n) + ".swp"
			if os.WriteFile(tmp, []byte("---\ntitle: saved\n---\n"+p.body()), 0o644) == nil {
				_ = os.Rename(tmp, p.path(n))
			}
		}
	case 11: // a folder of files appears, or goes
		if p.r.IntN(2) == 0 {
			for i := range 3 {
				p.write(fmt.Sprintf("batch%d/sub/b%d", p.n, i), p.body())
			}
		} else if ns := p.names(); len(ns) > 0 {
			if f := vault.Folder(ns[p.r.IntN(len(ns))]); f != "" {
				_ = os.RemoveAll(filepath.Join(p.v.Root(), filepath.FromSlash(f)))
			}
		}
	case 12: // a file that does not parse
		p.write(fmt.Sprintf("%s/bad%d", folder, p.n), "---\ntitle: [unclosed\n---\nbroken "+p.text(2)+"\n")
	case 13:
		_, _, _ = p.v.Alias(ctx, p.someName(), p.text(1)+fmt.Sprint(p.n))
	case 14: // touched to an old mtime: the same content, and a stamp old enough to trust
		old := time.Now().Add(-time.Duration(1+p.r.IntN(100)) * time.Hour)
		_ = os.Chtimes(p.path(p.someName()), old, old)
	}
}

func (p *propRun) write(name, content string) {
	path := p.path(name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		p.t.Fatal(err)
	}
}

func (p *propRun) search() {
	if _, err := p.ix.Search(p.t.Context(), Query{Text: p.text(1)}); err != nil {
		p.t.Fatal(err)
	}
}

// compare checks the index against one rebuilt from the files.
func (p *propRun) compare() {
	t := p.t
	ctx := t.Context()
	if _, err := p.ix.check(ctx, CheckFull); err != nil {
		t.Fatal(err)
	}
	live, err := p.ix.handle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(t.TempDir(), "fresh.db")
	if _, err := p.ix.build(ctx, tmp, ""); err != nil {
		t.Fatal(err)
	}
	fresh, err := openDB(tmp, livePragmas)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	got, want := dump(t, live), dump(t, fresh)
	if got != want {
		t.Fatalf("after %d steps the index differs from a rebuild:\n%s", p.n, diffLines(got, want))
	}
	checkSums(t, live)
	checkSums(t, fresh)
}

// checkSums checks that folder_sums holds for every folder the XOR of
// stampSum over its entries, as the full check assumes.
func checkSums(t *testing.T, db *sql.DB) {
	t.Helper()
	rows, err := loadStampRows(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]uint64{}
	for _, r := range rows {
		want[vault.Folder(r.name)] ^= stampSum(r.name, r.stamp, r.settled)
	}
	got, err := loadSums(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	for f, sum := range got {
		if sum != want[f] {
			t.Errorf("folder_sums of %q is %x; its entries sum to %x", f, sum, want[f])
		}
	}
	for f := range want {
		if _, ok := got[f]; !ok {
			t.Errorf("folder_sums has no row for %q, which holds entries", f)
		}
	}
}

// loadStampRows reads the name, size, mtime and settled flag of every entry.
func loadStampRows(ctx context.Context, db *sql.DB) ([]entryRow, error) {
	rows, err := db.QueryContext(ctx, `SELECT name, size, mtime, settled FROM entries`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []entryRow
	for rows.Next() {
		var r entryRow
		if err := rows.Scan(&r.name, &r.stamp.size, &r.stamp.mtime, &r.settled); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// dump renders an index's content as sorted lines, leaving out what may
// differ between equal indexes: ids and whether rows are settled.
func dump(t *testing.T, db *sql.DB) string {
	t.Helper()
	var lines []string
	for _, q := range []string{
		`SELECT 'entry', name, slug, folder, title, title_fold, type, tags, project, pinned, source, created, updated,
			archived, superseded_by, recency, frontmatter, body_sum, hash, size, mtime, problem FROM entries`,
		`SELECT 'alias', e.name, a.alias, a.fold FROM aliases a JOIN entries e ON e.id = a.entry_id`,
		`SELECT 'tag', e.name, t.tag FROM tags t JOIN entries e ON e.id = t.entry_id`,
		`SELECT 'link', e.name, kind, target, heading, label, key_raw, key_norm, key_fold, key_nfold, coalesce(to_name, '<nil>'), status
			FROM links l JOIN entries e ON e.id = l.from_id`,
		`SELECT 'fts', e.name, f.name, f.title, f.tags, f.body FROM fts f JOIN entries e ON e.id = f.rowid`,
		`SELECT 'head', e.name, f.name, f.title, f.tags FROM fts_head f JOIN entries e ON e.id = f.rowid`,
		`SELECT 'recent', e.name FROM fts_recent f JOIN entries e ON e.id = f.rowid`,
		`SELECT 'folder', path, mtime FROM folders`,
		`SELECT 'count', (SELECT count(*) FROM fts), (SELECT count(*) FROM fts_head), (SELECT count(*) FROM entries)`,
	} {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			parts := make([]string, len(vals))
			for i, v := range vals {
				parts[i] = fmt.Sprint(v)
			}
			lines = append(lines, strings.Join(parts, "|"))
		}
		rows.Close()
	}
	for _, table := range []string{"fts", "fts_head", "fts_recent"} {
		if _, err := db.Exec(`INSERT INTO ` + table + `(` + table + `, rank) VALUES ('integrity-check', 0)`); err != nil {
			t.Fatalf("integrity check of %s: %v", table, err)
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

func diffLines(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	var b strings.Builder
	for _, l := range g {
		if !slices.Contains(w, l) {
			b.WriteString("- index:   " + l + "\n")
		}
	}
	for _, l := range w {
		if !slices.Contains(g, l) {
			b.WriteString("+ rebuild: " + l + "\n")
		}
	}
	return b.String()
}
