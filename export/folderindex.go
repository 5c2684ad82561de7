package export

import (
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ctx0/ctx0/internal/words"
	"github.com/ctx0/ctx0/vault"
)

// folderIndexes makes the _index.md of the export's root and of every
// folder that holds exported entries: one row per entry, newest first, and
// links to the indexes of the folders inside.
func (s *set) folderIndexes(ctx context.Context) ([]file, error) {
	entries := map[string][]*doc{} // by folder
	subs := map[string]map[string]bool{}
	total := map[string]int{} // entries in a folder and all folders inside it
	entries[""] = nil
	for _, d := range s.docs {
		f := folderOf(d.file)
		entries[f] = append(entries[f], d)
		for {
			total[f]++
			if f == "" {
				break
			}
			parent := folderOf(f)
			if subs[parent] == nil {
				subs[parent] = map[string]bool{}
			}
			subs[parent][f] = true
			if _, ok := entries[parent]; !ok {
				entries[parent] = nil
			}
			f = parent
		}
	}
	summaries := make(map[*doc]string, len(s.docs))
	for _, d := range s.docs {
		sum, err := s.summary(ctx, d)
		if err != nil {
			return nil, err
		}
		summaries[d] = sum
	}
	var out []file
	for f, docs := range entries {
		var b strings.Builder
		s.writeIndex(&b, f, docs, slices.Sorted(maps.Keys(subs[f])), total, summaries)
		out = append(out, file{path: path.Join(f, indexFile), data: []byte(b.String())})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out, nil
}

func (s *set) writeIndex(b *strings.Builder, f string, docs []*doc, subs []string, total map[string]int, summaries map[*doc]string) {
	up := relative(f, guideFile)
	if f == "" {
		fmt.Fprintf(b, "# Index of this export\n\nThe entries at the top of this ctx0 memory export and its folders. How to read it: [CONTEXT.md](%s).\n", up)
	} else {
		fmt.Fprintf(b, "# Index of %s/\n\nPart of a ctx0 memory export: [CONTEXT.md](%s) says how to read it. Up: [%s](%s).\n",
			f, up, indexTitle(folderOf(f)), relative(f, path.Join(folderOf(f), indexFile)))
	}
	fmt.Fprintf(b, "\n%s here, newest first", words.Plural(len(docs), "entry", "entries"))
	if len(subs) > 0 {
		fmt.Fprintf(b, "; %d in all with the folders inside", total[f])
	}
	b.WriteString(".\n")
	if len(subs) > 0 {
		b.WriteString("\n## Folders\n\n| folder | entries |\n| --- | ---: |\n")
		for _, sub := range subs {
			fmt.Fprintf(b, "| [%s/](%s) | %d |\n", escapeCell(path.Base(sub)), relative(f, path.Join(sub, indexFile)), total[sub])
		}
	}
	if len(docs) == 0 {
		return
	}
	sorted := append([]*doc(nil), docs...)
	sort.SliceStable(sorted, func(i, j int) bool {
		ti, tj := sorted[i].when(), sorted[j].when()
		if !ti.Equal(tj) {
			return ti.After(tj)
		}
		return sorted[i].name < sorted[j].name
	})
	b.WriteString("\n## Entries\n\n| entry | title | type | tags | happened | summary |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, d := range sorted {
		text := strings.TrimSuffix(path.Base(d.file), ".md")
		if s.flatten {
			text = s.shownName(d) // the file's name says less than the vault's
		}
		happened := ""
		if t := d.when(); !t.IsZero() {
			happened = t.UTC().Format(time.DateOnly)
		}
		fmt.Fprintf(b, "| [%s](%s) | %s | %s | %s | %s | %s |\n",
			escapeCell(escapeLabel(text)), relative(f, d.file), escapeCell(d.e.Title()), escapeCell(d.e.Type()),
			escapeCell(strings.Join(d.e.Tags(), ", ")), happened, escapeCell(summaries[d]))
	}
}

// when is the time an entry is listed by: when what it tells happened
// (vault.Happened), the date search and retrieve show.
func (d *doc) when() time.Time { return vault.Happened(d.name, d.e) }

func indexTitle(f string) string {
	if f == "" {
		return "index of the export"
	}
	return "index of " + f + "/"
}

// escapeCell keeps text inside one cell of a markdown table.
func escapeCell(s string) string { return cellEscaper.Replace(s) }

var cellEscaper = strings.NewReplacer("|", `\|`, "\n", " ", "\r", "")
