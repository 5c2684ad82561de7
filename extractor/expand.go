package extractor

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/ctx0/ctx0/internal/words"
	"github.com/ctx0/ctx0/vault"
)

// maxNamesPerHit bounds the names looked up in one hit's passage.
const maxNamesPerHit = 8

// expand follows the best hits: to the entries they link to, and to the
// people and projects their passages name without a link. A question about
// a decision then also brings the project it belongs to and the person
// who made it.
func (r *retrieval) expand(ctx context.Context) error {
	if !r.entriesInScope() {
		return nil
	}
	var from []*candidate
	for _, c := range r.order {
		if len(from) == expandFrom || c.score < expandScore*r.order[0].score {
			break
		}
		from = append(from, c)
	}
	for _, p := range from {
		if p.kind != "entry" {
			continue
		}
		links, err := r.m.Index.Links(ctx, p.name)
		if err != nil {
			return fmt.Errorf("retrieve %q: %w", r.req.Query, err)
		}
		for _, l := range links {
			if l.To != nil {
				if err := r.follow(ctx, p, *l.To, "linked from "+p.title, false); err != nil {
					return err
				}
			}
		}
		for _, name := range properNames(p.passage.text, maxNamesPerHit) {
			ms, err := r.m.Index.Lookup(ctx, name)
			if err != nil {
				return fmt.Errorf("retrieve %q: %w", r.req.Query, err)
			}
			for _, m := range ms {
				if err := r.follow(ctx, p, m.Name, fmt.Sprintf("%s names it (%q)", p.title, name), true); err != nil {
					return err
				}
			}
		}
	}
	// The bar is set by the best candidate that was judged: one left
	// unread (past readLimit) still has its search rank as its score, on
	// another scale, and would raise the bar over every passage judged.
	r.order = r.order[:0]
	for _, c := range r.sorted() {
		if c.read && c.score > 0 && (c.kind == "session" || c.body != "") {
			r.order = append(r.order, c)
		}
	}
	if len(r.order) == 0 {
		return nil
	}
	top := r.order[0].score
	below := func(c *candidate) bool {
		if c.name == r.first {
			// One answer for one question: what search ranks first
			// gives way only to an item that holds what it says.
			return false
		}
		if (c.named || c.reached) && c.typ != "contact" && r.onlyNamed(c) {
			// In for its name ("MoonMind", said by the question or a
			// hit) or a hit's link, it holds no other word of the
			// question besides what its title holds: its
			// overview costs the tokens of evidence and answers
			// nothing the question asks of it. A person's entry is
			// what is known of them, asked of in words it need not
			// say ("how does Sarah like to be contacted?": "prefers
			// Slack"), and is judged by its score alone.
			return true
		}
		if r.thin && c.kind == "session" && holdsAll(c.held, r.order[0].held) {
			// All that was found holds as little of the question:
			// what ranks one above another is not evidence.
			return false
		}
		least := minScore
		if c.from > 0 {
			// Reached from a hit, it scores at most linkedShare of it:
			// it is held to a lower bar.
			least = linkedScore
		}
		return c.score < least*top
	}
	// The passage of the best candidate's conversation is the rest of
	// the source the bundle leads with, however weak by itself: the fix
	// beside the entry that kept the error.
	lead := r.order[0].conv
	r.order = slices.DeleteFunc(r.order, func(c *candidate) bool {
		return below(c) && (lead == "" || c.conv != lead || c.kind != "session")
	})
	return nil
}

// onlyNamed reports whether the question asks more than c's title holds
// and c's passage holds none of it: all it holds of the question is its
// name.
func (r *retrieval) onlyNamed(c *candidate) bool {
	title := r.match.matched(c.title)
	if len(title) == len(r.t.stems) {
		return false // the question asks of it and nothing else ("who is Sarah?")
	}
	for _, i := range r.match.matched(c.passage.text) {
		if !slices.Contains(title, i) {
			return false
		}
	}
	return true
}

// follow adds the entry name, reached from p, unless it is a candidate
// already or out of scope; onlyEntities keeps it only if it is a person or
// a project.
func (r *retrieval) follow(ctx context.Context, p *candidate, name, why string, onlyEntities bool) error {
	if !r.inScope(name) {
		return nil
	}
	if c, ok := r.cands[name]; ok {
		// Found already: being named by a better hit may raise it.
		if from := p.score * linkedShare; c.read && c.body != "" && c.score > 0 && from > c.from {
			c.from = from
			if b := r.base(c); b*c.mult > c.score {
				c.score = b * c.mult
				c.why = append(c.why, why)
			}
		}
		return nil
	}
	c := &candidate{kind: "entry", name: name, source: vault.EntryPath(name)}
	if err := r.read(ctx, c); err != nil {
		return err
	}
	if c.body == "" || onlyEntities && c.typ != "contact" && c.typ != "project" {
		return nil
	}
	r.cands[name] = c
	c.reached = true
	c.from = p.score * linkedShare
	c.why = append(c.why, why)
	r.judge(c)
	return nil
}

// properNames returns the capitalized words of text and runs of two or
// three of them ("Sarah", "Sarah Chen", "Example Ventures"), longest
// first, at most limit, leaving out stopwords that start a sentence.
func properNames(text string, limit int) []string {
	fields := strings.FieldsFunc(text, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '.' && r != '-' && r != '\''
	})
	capital := func(w string) bool {
		for _, r := range w {
			return unicode.IsUpper(r) && !words.IsStop(strings.ToLower(strings.TrimRight(w, ".'")))
		}
		return false
	}
	var out []string
	seen := map[string]bool{}
	for n := 3; n >= 1; n-- {
		for i := 0; i+n <= len(fields); i++ {
			run := fields[i : i+n]
			ok := true
			for j, w := range run {
				// A word that ends a sentence ends the name.
				if !capital(w) || j < n-1 && strings.HasSuffix(w, ".") && len(w) > 2 {
					ok = false
					break
				}
			}
			name := strings.TrimRight(strings.Join(run, " "), ".'")
			if ok && !seen[name] {
				seen[name] = true
				out = append(out, name)
			}
		}
	}
	return out[:min(len(out), limit)]
}
