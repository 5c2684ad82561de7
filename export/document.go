package export

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ctx0/ctx0/internal/words"
	"github.com/ctx0/ctx0/vault"
)

// Markdown writes the selected entries to w as one document to read: a
// table of contents, then each entry under a heading with its frontmatter
// in a YAML block, its headings moved two levels down to sit under it, and
// its links leading to the other entries' sections.
func Markdown(ctx context.Context, v *vault.Vault, w io.Writer, o Options) (Result, error) {
	s, err := load(ctx, v, o, o.All, false)
	if err != nil {
		return Result{}, err
	}
	st := newStats(s, o)
	// Who the user is comes first, as in a folder export's CONTEXT.md.
	docs := s.docs
	if me := s.byName["me"]; me != nil {
		docs = append([]*doc{me}, slices.DeleteFunc(slices.Clone(s.docs), func(d *doc) bool { return d == me })...)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# ctx0 memory export\n\n%s from the vault's commit `%s`, exported on %s.\n",
		words.Plural(len(s.docs), "entry", "entries"), shortHash(s.commit), o.now().Format("2006-01-02 15:04 UTC"))
	for _, n := range notes(o, st) {
		fmt.Fprintf(bw, "\n- %s", n)
	}
	bw.WriteString("\n\n## Contents\n\n")
	for _, d := range docs {
		fmt.Fprintf(bw, "- [%s](#%s)%s\n", escapeLabel(s.shownName(d)), escapeDestination(s.shownName(d)), titleSuffix(d))
	}
	href := func(to *doc, _ string) string { return "#" + escapeDestination(s.shownName(to)) }
	for _, d := range docs {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		body := d.e.Body()
		if o.Minimal {
			body = cut(body)
		}
		if body, err = s.rewrite(ctx, d.name, body, href, &st.Links); err != nil {
			return Result{}, err
		}
		links, err := s.linksLine(ctx, d.e, href, &st.Links)
		if err != nil {
			return Result{}, err
		}
		front := frontmatterText(d)
		fence := "```"
		if strings.Contains(front, fence) {
			fence = "~~~~"
		}
		fmt.Fprintf(bw, "\n---\n\n<a id=\"%s\"></a>\n\n## %s%s\n\n", escapeDestination(s.shownName(d)), s.shownName(d), titleSuffix(d))
		if front != "" {
			fmt.Fprintf(bw, "%syaml\n%s%s\n\n", fence, front, fence)
		}
		bw.WriteString(strings.TrimSpace(demote(body)) + "\n")
		if links != "" {
			bw.WriteString("\n" + links)
		}
		st.add(d, len(d.raw), 0)
	}
	if err := bw.Flush(); err != nil {
		return Result{}, fmt.Errorf("export: write document: %w", err)
	}
	return st.result(), nil
}

func titleSuffix(d *doc) string {
	if t := d.e.Title(); t != "" {
		return " — " + t
	}
	return ""
}

// frontmatterText is the YAML between an entry's '---' lines, as written.
func frontmatterText(d *doc) string {
	front := strings.TrimSuffix(string(d.raw), d.e.Body())
	_, rest, ok := strings.Cut(front, "\n") // past the opening line
	if !ok {
		return ""
	}
	rest = strings.TrimSuffix(rest, "\n")
	if i := strings.LastIndexByte(rest, '\n'); i >= 0 {
		return rest[:i+1] // before the closing line
	}
	return ""
}

// demote moves the ATX headings of a body two levels down (# becomes ###,
// never past ######), outside code blocks, so that an entry's headings sit
// under its own.
func demote(body string) string {
	lines := strings.SplitAfter(body, "\n")
	inFence := false
	for i, line := range lines {
		t := strings.TrimLeft(line, " ")
		switch {
		case fenceOf(t) != "":
			inFence = !inFence
		case !inFence && strings.HasPrefix(t, "#"):
			level := len(t) - len(strings.TrimLeft(t, "#"))
			rest := t[level:]
			if level <= 6 && (rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n' || rest[0] == '\r') {
				lines[i] = strings.Repeat("#", min(level+2, 6)) + rest
			}
		}
	}
	return strings.Join(lines, "")
}
