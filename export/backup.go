package export

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

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
	// Encoding is "base64" for a file that is not UTF-8 text: Text holds
	// its bytes in base64. Empty: Text is the file itself.
	Encoding string `json:"encoding,omitempty"`
	// Unparsed, if set, says why the file is not a valid entry: the backup
	// keeps it byte for byte in Text, with no frontmatter or body.
	Unparsed string `json:"unparsed,omitempty"`
}

// encodingBase64 is BackupEntry.Encoding for a file kept in base64.
const encodingBase64 = "base64"

// JSON writes a backup of the vault to w. It holds every entry that o
// selects, archived and superseded ones included, so that importing it
// gives the same vault back.
func JSON(ctx context.Context, v *vault.Vault, w io.Writer, o Options) (res Result, err error) {
	s, err := load(ctx, v, o, true, true)
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
	var unparsed []Skipped
	for i, d := range s.docs {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		be, err := s.backupEntry(ctx, d, &st.Links)
		if err != nil {
			return Result{}, err
		}
		buf, err := encodeEntry(be)
		if err != nil && d.unparsed == "" {
			// Frontmatter that parses but JSON cannot hold (nested too
			// deep): the file is kept as it is.
			d.unparsed = fmt.Sprintf("its frontmatter cannot be written as JSON: %v", err)
			buf, err = encodeEntry(rawEntry(d))
		}
		if err != nil {
			return Result{}, fmt.Errorf("export: entry %s: %w", d.name, err)
		}
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n    ")
		bw.Write(bytes.TrimRight(buf.Bytes(), "\n"))
		st.add(d, len(d.raw), 0)
		if d.unparsed != "" {
			unparsed = append(unparsed, Skipped{Path: vault.EntryPath(d.name), Error: d.unparsed})
		}
	}
	bw.WriteString("\n  ]\n}\n")
	if err := bw.Flush(); err != nil {
		return Result{}, fmt.Errorf("export: write backup: %w", err)
	}
	res = st.result()
	res.Unparsed = unparsed
	return res, nil
}

// encodeEntry is one entry as it goes into the backup: indented to be
// read, unless its file is larger than an entry may be, where indenting
// (a second pass over every byte) would take seconds.
func encodeEntry(be BackupEntry) (*bytes.Buffer, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if len(be.Text) <= entry.MaxSize {
		enc.SetIndent("    ", "  ")
	}
	return &buf, enc.Encode(be)
}

// rawEntry is the backup of a file that is not a valid entry: its bytes,
// in base64 if they are not UTF-8 text, and why.
func rawEntry(d *doc) BackupEntry {
	be := BackupEntry{Summary: vault.Summarize(d.name, entry.New()), Aliases: []string{}, Links: []string{},
		Frontmatter: map[string]any{}, Text: string(d.raw), Unparsed: d.unparsed}
	if !utf8.Valid(d.raw) {
		be.Text, be.Encoding = base64.StdEncoding.EncodeToString(d.raw), encodingBase64
	}
	return be
}

func (s *set) backupEntry(ctx context.Context, d *doc, counts *LinkCounts) (BackupEntry, error) {
	if d.unparsed != "" {
		return rawEntry(d), nil
	}
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
		switch e.Encoding {
		case "":
		case encodingBase64:
			var err error
			if data, err = base64.StdEncoding.DecodeString(e.Text); err != nil {
				return vault.Imported{}, fmt.Errorf("import %s: entry %s: text in base64: %w", label, name, err)
			}
		default:
			return vault.Imported{}, fmt.Errorf("import %s: entry %s: unknown encoding %q (want base64, or none)", label, name, e.Encoding)
		}
		if e.Text == "" && e.Unparsed == "" {
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
