package extractor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/ctx0/ctx0/internal/lazy"
	"github.com/ctx0/ctx0/internal/words"
	"github.com/ctx0/ctx0/vault"
)

// QueriesFile holds the vault's learned queries. It is committed with the
// vault, so every machine and agent that shares the vault shares them.
const QueriesFile = ".ctx0/queries.yaml"

// Query is a learned query: a named, parameterized plan that
// answers a recurring question faster and more precisely than a search.
//
//	queries:
//	  - name: investor-updates
//	    description: What investors said lately
//	    phrases: [investor updates, "what did investors say in the last {days} days"]
//	    params:
//	      - {name: days, default: "14"}
//	    steps:
//	      - search: investor OR funding
//	      - glob: contacts/*
//	      - filter: tags has investor
//	      - links: in
//	      - filter: updated since -{days}d
//	      - read: 5
//
// Steps run in order over a list of entries:
//
//	search: TEXT   add the entries a search finds (package query's syntax),
//	               best first; scope:, type:, tag: and limit: narrow it
//	glob: PATTERN  add the entries whose names match (path.Match: *, ?, [...]),
//	               the most recently changed first
//	filter: F      keep the entries that F holds for: "FIELD OP VALUE", OP one of
//	               is, not, has (a list field), since, before (a time: a date,
//	               an RFC 3339 time, or -7d, -12h, -2w from now); any frontmatter
//	               field, and name
//	links: DIR     add the entries linked from (out), linking to (in), or
//	               both ways from the list
//	read: N        keep the first N; each becomes a passage of the bundle
//
// {name} in any step is replaced by the parameter's value; {project} is
// the current project unless a parameter says otherwise.
type Query struct {
	Name        string   `yaml:"name" json:"name"`
	Description string   `yaml:"description,omitempty" json:"description,omitempty"`
	Phrases     []string `yaml:"phrases,omitempty" json:"phrases"`
	Params      []Param  `yaml:"params,omitempty" json:"params"`
	Steps       []Step   `yaml:"steps" json:"steps"`
}

// Param is a parameter of a learned query.
type Param struct {
	Name        string `yaml:"name" json:"name"`
	Default     string `yaml:"default,omitempty" json:"default,omitempty"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
}

// Step is one step of a learned query's plan: exactly one of Search, Glob,
// Filter, Links and Read, with Scope, Type, Tag and Limit for Search.
type Step struct {
	Search string `yaml:"search,omitempty" json:"search,omitempty"`
	Scope  string `yaml:"scope,omitempty" json:"scope,omitempty"`
	Type   string `yaml:"type,omitempty" json:"type,omitempty"`
	Tag    string `yaml:"tag,omitempty" json:"tag,omitempty"`
	Limit  int    `yaml:"limit,omitempty" json:"limit,omitempty"`
	Glob   string `yaml:"glob,omitempty" json:"glob,omitempty"`
	Filter string `yaml:"filter,omitempty" json:"filter,omitempty"`
	Links  string `yaml:"links,omitempty" json:"links,omitempty"`
	Read   int    `yaml:"read,omitempty" json:"read,omitempty"`
}

// Queries are the learned queries of a vault, in the file's order.
type Queries []Query

// ErrNoQuery is returned for a learned query name that the vault lacks.
var ErrNoQuery = errors.New("no such learned query")

// ErrParam is returned for a parameter a learned query does not take, or
// lacks a value for.
var ErrParam = errors.New("bad parameter")

// queryName is what a learned query's name may be: a slug, so that it
// reads well on a command line.
var queryName = lazy.Regexp(`^[a-z0-9][a-z0-9_-]*$`)

// reservedNames are the subcommands of `ctx0 query`.
var reservedNames = []string{"list", "save", "rm"}

// LoadQueries reads the learned queries of the vault at root; a vault
// without the file has none.
func LoadQueries(root string) (Queries, error) {
	p := filepath.Join(root, filepath.FromSlash(QueriesFile))
	data, err := vault.ReadFile(root, QueriesFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read learned queries: %w", err)
	}
	var doc struct {
		Queries Queries `yaml:"queries"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("parse %s: %w", p, err)
	}
	seen := map[string]bool{}
	for _, q := range doc.Queries {
		if err := q.Check(); err != nil {
			return nil, fmt.Errorf("parse %s: %w", p, err)
		}
		if seen[q.Name] {
			return nil, fmt.Errorf("parse %s: learned query %q is defined twice", p, q.Name)
		}
		seen[q.Name] = true
	}
	return doc.Queries, nil
}

// Get returns the learned query name.
func (qs Queries) Get(name string) (Query, error) {
	for _, q := range qs {
		if q.Name == name {
			return q, nil
		}
	}
	return Query{}, fmt.Errorf("%w %q (see ctx0 query list)", ErrNoQuery, name)
}

// Check reports what is wrong with a learned query, naming it.
func (q Query) Check() error {
	if !queryName().MatchString(q.Name) || slices.Contains(reservedNames, q.Name) {
		return fmt.Errorf("learned query %q: a name is lowercase letters, digits, - and _, and not list, save or rm", q.Name)
	}
	if len(q.Steps) == 0 {
		return fmt.Errorf("learned query %q: no steps", q.Name)
	}
	params := map[string]bool{"project": true}
	for _, p := range q.Params {
		if !queryName().MatchString(p.Name) {
			return fmt.Errorf("learned query %q: parameter %q: a name is lowercase letters, digits, - and _", q.Name, p.Name)
		}
		params[p.Name] = true
	}
	for i, s := range q.Steps {
		if err := s.check(); err != nil {
			return fmt.Errorf("learned query %q: step %d: %w", q.Name, i+1, err)
		}
		for _, m := range placeholder().FindAllStringSubmatch(s.text(), -1) {
			if !params[m[1]] {
				return fmt.Errorf("learned query %q: step %d: {%s} is not a parameter", q.Name, i+1, m[1])
			}
		}
	}
	for _, ph := range q.Phrases {
		for _, m := range placeholder().FindAllStringSubmatch(ph, -1) {
			if !params[m[1]] {
				return fmt.Errorf("learned query %q: phrase %q: {%s} is not a parameter", q.Name, ph, m[1])
			}
		}
	}
	return nil
}

// placeholder is a parameter in a step or a phrase.
var placeholder = lazy.Regexp(`\{([a-z0-9_-]+)\}`)

// check reports what is wrong with a step.
func (s Step) check() error {
	kinds := 0
	for _, set := range []bool{s.Search != "", s.Glob != "", s.Filter != "", s.Links != "", s.Read != 0} {
		if set {
			kinds++
		}
	}
	if kinds != 1 {
		return errors.New("want exactly one of search, glob, filter, links and read")
	}
	if s.Search == "" && (s.Scope != "" || s.Type != "" || s.Tag != "" || s.Limit != 0) {
		return errors.New("scope, type, tag and limit go with search")
	}
	switch {
	case s.Filter != "":
		if _, err := parseFilter(s.Filter); err != nil && !strings.Contains(s.Filter, "{") {
			return err
		}
	case s.Links != "":
		if s.Links != "out" && s.Links != "in" && s.Links != "both" {
			return fmt.Errorf("links: %q: want out, in or both", s.Links)
		}
	case s.Read < 0 || s.Limit < 0:
		return errors.New("read and limit take a number above 0")
	}
	return nil
}

// text is everything a step says, for finding its placeholders.
func (s Step) text() string {
	return strings.Join([]string{s.Search, s.Scope, s.Type, s.Tag, s.Glob, s.Filter, s.Links}, "\x00")
}

// Bind returns the value of every parameter of q: from args, else the
// default; project defaults to project. A parameter without a value, or
// an argument q does not take, is an error.
func (q Query) Bind(args map[string]string, project string) (map[string]string, error) {
	vals := map[string]string{"project": project}
	known := map[string]bool{"project": true}
	for _, p := range q.Params {
		known[p.Name] = true
		vals[p.Name] = p.Default
	}
	for k, v := range args {
		if !known[k] {
			return nil, fmt.Errorf("learned query %q: %w: it takes no %q (see ctx0 query list)", q.Name, ErrParam, k)
		}
		vals[k] = v
	}
	for _, p := range q.Params {
		if vals[p.Name] == "" {
			return nil, fmt.Errorf("learned query %q: %w: %s has no default; give --param %s=VALUE", q.Name, ErrParam, p.Name, p.Name)
		}
	}
	return vals, nil
}

// Match finds the learned query one of whose phrases is the question:
// the same words, ignoring case and punctuation, where a {param} of the
// phrase stands for one word of the question, its value; or, for a phrase
// without parameters, the same content words in any order.
func (qs Queries) Match(question string) (Query, map[string]string, bool) {
	return qs.match(question, analyze(question))
}

// match is Match of a question already read as t.
func (qs Queries) match(question string, t terms) (Query, map[string]string, bool) {
	words := lowerWords(question)
	content := strings.Join(slices.Sorted(slices.Values(t.stems)), " ")
	for _, q := range qs {
		for _, ph := range q.Phrases {
			if args, ok := matchPhrase(lowerWords(ph), words); ok {
				return q, args, true
			}
			if !placeholder().MatchString(ph) && content != "" && content == strings.Join(slices.Sorted(slices.Values(analyze(ph).stems)), " ") {
				return q, map[string]string{}, true
			}
		}
	}
	return Query{}, nil, false
}

// lowerWords returns the words of s, lowercased, keeping {param} whole.
func lowerWords(s string) []string {
	var out []string
	for _, f := range strings.Fields(strings.ToLower(s)) {
		if placeholder().MatchString(f) && strings.HasPrefix(strings.Trim(f, ".,;:!?\"'"), "{") {
			out = append(out, strings.Trim(f, ".,;:!?\"'"))
			continue
		}
		out = append(out, words.Split(f)...)
	}
	return out
}

func matchPhrase(phrase, words []string) (map[string]string, bool) {
	if len(phrase) != len(words) || len(phrase) == 0 {
		return nil, false
	}
	args := map[string]string{}
	for i, p := range phrase {
		if m := placeholder().FindStringSubmatch(p); m != nil && m[0] == p {
			args[m[1]] = words[i]
			continue
		}
		if p != words[i] {
			return nil, false
		}
	}
	return args, true
}

// SaveQuery adds q to the vault's learned queries, or replaces the one of
// its name, keeping the rest of the file (comments included) as written,
// and commits the file.
func SaveQuery(ctx context.Context, v *vault.Vault, q Query) (vault.Commit, error) {
	if err := q.Check(); err != nil {
		return vault.Commit{}, err
	}
	return editQueries(ctx, v, "query: save "+q.Name, func(list *yaml.Node) error {
		var node yaml.Node
		if err := node.Encode(q); err != nil {
			return err
		}
		if i := findQuery(list, q.Name); i >= 0 {
			list.Content[i] = &node
		} else {
			list.Content = append(list.Content, &node)
		}
		return nil
	})
}

// RemoveQuery removes the learned query name and commits the file.
func RemoveQuery(ctx context.Context, v *vault.Vault, name string) (vault.Commit, error) {
	return editQueries(ctx, v, "query: remove "+name, func(list *yaml.Node) error {
		i := findQuery(list, name)
		if i < 0 {
			return fmt.Errorf("%w %q (see ctx0 query list)", ErrNoQuery, name)
		}
		list.Content = slices.Delete(list.Content, i, i+1)
		return nil
	})
}

// findQuery returns the index in list of the query name, or -1.
func findQuery(list *yaml.Node, name string) int {
	for i, n := range list.Content {
		var q struct {
			Name string `yaml:"name"`
		}
		if n.Decode(&q) == nil && q.Name == name {
			return i
		}
	}
	return -1
}

// editQueries changes the queries list of the file and commits it, under
// the vault's lock, so that two saves at once both land.
func editQueries(ctx context.Context, v *vault.Vault, msg string, edit func(list *yaml.Node) error) (vault.Commit, error) {
	return v.EditSettings(ctx, path.Base(QueriesFile), msg, func(data []byte) ([]byte, error) {
		return editQueriesFile(filepath.Join(v.Root(), filepath.FromSlash(QueriesFile)), data, edit)
	})
}

// editQueriesFile applies edit to the queries list of the file p, which
// holds data.
func editQueriesFile(p string, data []byte, edit func(list *yaml.Node) error) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("parse %s: %w", p, err)
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
		doc.HeadComment = "Learned queries: named plans that answer recurring questions (ctx0 query --help)."
	}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("parse %s: want a mapping with a queries list", p)
	}
	var list *yaml.Node
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value == "queries" {
			list = top.Content[i+1]
		}
	}
	if list == nil {
		list = &yaml.Node{Kind: yaml.SequenceNode}
		top.Content = append(top.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "queries"}, list)
	}
	if list.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("parse %s: queries: want a list", p)
	}
	list.Style = 0 // block style, whatever the file had for an empty list
	if err := edit(list); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("write %s: %w", p, err)
	}
	return out.Bytes(), nil
}
