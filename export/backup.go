package export

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vault/entry"
)

// backupFormat names a ctx0 JSON backup in its format field.
const backupFormat = "ctx0-backup"

// Backup is what ctx0 export --format json writes and ctx0 import reads.
type Backup struct {
	BackupHead
	Entries []BackupEntry `json:"entries"`
}

// BackupHead says what a backup is and where it came from.
type BackupHead struct {
	Format     string    `json:"format"`  // "ctx0-backup"
	Version    int       `json:"version"` // 1
	ExportedAt time.Time `json:"exported_at"`
	Commit     string    `json:"commit"` // the vault's commit it was made from
}

// BackupEntry is one entry of a backup: its whole file, byte for byte, and
// what it says, for tools that read the backup without parsing markdown.
type BackupEntry struct {
	vault.Summary
	Aliases     []string       `json:"aliases"`
	Links       []string       `json:"links"` // the entries it links to, by name
	Frontmatter map[string]any `json:"frontmatter"`
	Body        string         `json:"body"`
	Text        string         `json:"text"` // the file; import uses it, else frontmatter and body
}

// JSON writes a backup of the vault to w. It holds every entry that o
// selects, archived and superseded ones included, so that importing it
// gives the same vault back.
func JSON(ctx context.Context, v *vault.Vault, w io.Writer, o Options) (res Result, err error) {
	s, err := load(ctx, v, o, true)
	if err != nil {
		return Result{}, err
	}
	st := newStats(s, o)
	bw := bufio.NewWriter(w)
	head, err := json.MarshalIndent(BackupHead{Format: backupFormat, Version: 1, ExportedAt: o.now(), Commit: s.commit}, "", "  ")
	if err != nil {
		return Result{}, fmt.Errorf("export: %w", err)
	}
	// The head, then one entry at a time: a backup of a large vault is
	// never in memory twice.
	bw.Write(bytes.TrimSuffix(head, []byte("\n}")))
	bw.WriteString(",\n  \"entries\": [")
	for i, d := range s.docs {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		be, err := s.backupEntry(ctx, d, &st.Links)
		if err != nil {
			return Result{}, err
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("    ", "  ")
		if err := enc.Encode(be); err != nil {
			return Result{}, fmt.Errorf("export: entry %s: %w", d.name, err)
		}
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n    ")
		bw.Write(bytes.TrimRight(buf.Bytes(), "\n"))
		st.add(d, len(d.raw), 0)
	}
	bw.WriteString("\n  ]\n}\n")
	if err := bw.Flush(); err != nil {
		return Result{}, fmt.Errorf("export: write backup: %w", err)
	}
	return st.result(), nil
}

func (s *set) backupEntry(ctx context.Context, d *doc, counts *LinkCounts) (BackupEntry, error) {
	links, err := s.linkNames(ctx, d, counts)
	if err != nil {
		return BackupEntry{}, err
	}
	aliases := d.e.Aliases()
	if aliases == nil {
		aliases = []string{}
	}
	return BackupEntry{
		Summary: vault.Summarize(d.name, d.e), Aliases: aliases, Links: links,
		Frontmatter: d.e.Fields(), Body: d.e.Body(), Text: string(d.raw),
	}, nil
}

// linkNames lists the entries that d links to, in its body or its links:
// field, by name.
func (s *set) linkNames(ctx context.Context, d *doc, counts *LinkCounts) ([]string, error) {
	out := []string{}
	add := func(r resolution) {
		counts.add(r.status)
		if r.name != "" && !slices.Contains(out, r.name) {
			out = append(out, r.name)
		}
	}
	if strings.Contains(d.e.Body(), "[") {
		for _, l := range entry.Links([]byte(d.e.Body())) {
			if l.Kind == entry.Markdown {
				add(s.resolvePath(d.name, l.Target))
				continue
			}
			r, err := s.resolveRef(ctx, l.Target)
			if err != nil {
				return nil, err
			}
			add(r)
		}
	}
	for _, n := range d.e.LinkNames() {
		r, err := s.resolveRef(ctx, n)
		if err != nil {
			return nil, err
		}
		add(r)
	}
	sort.Strings(out)
	return out, nil
}

// Import brings the entries of a JSON backup into the vault as one commit,
// as vault.Import does: new entries as they are, byte for byte, and entries
// that exist merged field by field. An entry's text is its file; an entry
// without text (a backup written by another tool) is made from its
// frontmatter and body. label names the backup in the commit message.
func Import(ctx context.Context, v *vault.Vault, r io.Reader, label string) (vault.Imported, error) {
	var b Backup
	if err := json.NewDecoder(r).Decode(&b); err != nil {
		return vault.Imported{}, fmt.Errorf("import %s: not a ctx0 JSON backup: %w", label, err)
	}
	if b.Format != backupFormat {
		return vault.Imported{}, fmt.Errorf("import %s: not a ctx0 JSON backup (its format is %q, want %q): make one with ctx0 export --format json", label, b.Format, backupFormat)
	}
	if b.Version != 1 {
		return vault.Imported{}, fmt.Errorf("import %s: backup version %d is newer than this ctx0 reads (1); update ctx0", label, b.Version)
	}
	files := make([]vault.ImportFile, 0, len(b.Entries))
	for i, e := range b.Entries {
		name := e.Name
		if name == "" {
			name = strings.TrimSuffix(e.Path, ".md")
		}
		if name == "" {
			return vault.Imported{}, fmt.Errorf("import %s: entry %d has no name", label, i+1)
		}
		data := []byte(e.Text)
		if e.Text == "" {
			var err error
			if data, err = compose(e); err != nil {
				return vault.Imported{}, fmt.Errorf("import %s: entry %s: %w", label, name, err)
			}
		}
		files = append(files, vault.ImportFile{Name: name, Data: data})
	}
	return v.Import(ctx, files, label)
}

// knownOrder is the order in which compose writes the fields ctx0 knows;
// others follow in alphabetical order.
var knownOrder = []string{entry.FieldTitle, entry.FieldType, entry.FieldAliases, entry.FieldTags, entry.FieldProject,
	entry.FieldPinned, entry.FieldSource, entry.FieldCreated, entry.FieldUpdated, entry.FieldLinks,
	entry.FieldSupersededBy, entry.FieldArchived}

// compose makes an entry's file from its frontmatter and body.
func compose(be BackupEntry) ([]byte, error) {
	e := entry.New()
	keys := make([]string, 0, len(be.Frontmatter))
	for k := range be.Frontmatter {
		keys = append(keys, k)
	}
	sort.SliceStable(keys, func(i, j int) bool {
		oi, oj := slices.Index(knownOrder, keys[i]), slices.Index(knownOrder, keys[j])
		if oi < 0 {
			oi = len(knownOrder)
		}
		if oj < 0 {
			oj = len(knownOrder)
		}
		if oi != oj {
			return oi < oj
		}
		return keys[i] < keys[j]
	})
	for _, k := range keys {
		if err := e.Set(k, be.Frontmatter[k]); err != nil {
			return nil, fmt.Errorf("field %s: %w", k, err)
		}
	}
	e.SetBody(be.Body)
	return e.Bytes(), nil
}
