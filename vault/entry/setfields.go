package entry

import (
	"fmt"
	"slices"
	"time"

	"go.yaml.in/yaml/v3"
)

// Field is a key and its value, for SetFields.
type Field struct {
	Key   string
	Value any
}

// SetFields sets fields in order, as Set does one at a time, and gives the
// same bytes; fields new to the entry are added with one check that the
// frontmatter reads back, rather than one check each (the check parses
// the whole frontmatter, so making an entry field by field parsed it once
// per field). A field the entry has already, or a key given twice, is set
// by Set.
func (e *Entry) SetFields(fields []Field) error {
	var (
		pairs   = slices.Clone(e.pairs())
		spliced = e.front
		seen    = map[string]bool{}
		rest    []Field
	)
	for i, f := range fields {
		if seen[f.Key] || e.index(f.Key) >= 0 {
			rest = fields[i:]
			break
		}
		seen[f.Key] = true
		value := f.Value
		if t, ok := value.(time.Time); ok {
			value = t.UTC().Truncate(time.Second)
		}
		v, err := toNode(value)
		if err != nil {
			return fmt.Errorf("entry: set %s: %w", f.Key, err)
		}
		if v.Kind == yaml.SequenceNode && !slices.ContainsFunc(v.Content, isCollection) {
			v.Style |= yaml.FlowStyle
		}
		k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: f.Key}
		text, err := encode(pair(k, v), false, e.indent(), e.eol())
		if err != nil {
			return fmt.Errorf("entry: set %s: %w", f.Key, err)
		}
		spliced += text
		pairs = append(pairs, k, v)
	}
	if len(seen) > 0 {
		if err := e.update(pairs, spliced, true); err != nil {
			return fmt.Errorf("entry: set %d fields: %w", len(seen), err)
		}
	}
	for _, f := range rest {
		if err := e.Set(f.Key, f.Value); err != nil {
			return err
		}
	}
	return nil
}
