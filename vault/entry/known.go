package entry

import (
	"time"

	"go.yaml.in/yaml/v3"
)

// The fields that ctx0 knows. Others are kept as they are.
const (
	FieldTitle        = "title"
	FieldType         = "type"
	FieldAliases      = "aliases"
	FieldTags         = "tags"
	FieldProject      = "project"
	FieldPinned       = "pinned"
	FieldSource       = "source"
	FieldCreated      = "created"
	FieldUpdated      = "updated"
	FieldLinks        = "links"
	FieldSupersededBy = "superseded_by"
	FieldArchived     = "archived"
)

// The accessors of known fields return zero values for fields that are
// absent or of the wrong type. They are lenient where the intent is plain:
// a text field reads any scalar as written (title: 1984 is "1984"), and a
// list field reads a single scalar as a list of one (tags: investor).

// Title returns the title field.
func (e *Entry) Title() string { return e.text(FieldTitle) }

// Type returns the type field: contact, project, and so on.
func (e *Entry) Type() string { return e.text(FieldType) }

// Aliases returns the aliases field: other names of the entry.
func (e *Entry) Aliases() []string { return e.list(FieldAliases) }

// Tags returns the tags field.
func (e *Entry) Tags() []string { return e.list(FieldTags) }

// Project returns the project field.
func (e *Entry) Project() string { return e.text(FieldProject) }

// Pinned returns the pinned field, which must be a YAML bool.
func (e *Entry) Pinned() bool {
	v, _ := e.Get(FieldPinned)
	b, _ := v.(bool)
	return b
}

// Source returns the source field: who or what wrote the entry.
func (e *Entry) Source() string { return e.text(FieldSource) }

// Created returns the created field.
func (e *Entry) Created() time.Time { return e.time(FieldCreated) }

// Updated returns the updated field.
func (e *Entry) Updated() time.Time { return e.time(FieldUpdated) }

// Archived returns the archived field.
func (e *Entry) Archived() time.Time { return e.time(FieldArchived) }

// LinkNames returns the links field: entries this one links to besides
// the links in its body.
func (e *Entry) LinkNames() []string { return e.list(FieldLinks) }

// SupersededBy returns the superseded_by field: the entry that replaces
// this one.
func (e *Entry) SupersededBy() string { return e.text(FieldSupersededBy) }

func (e *Entry) text(key string) string {
	s, _ := scalar(e.value(key))
	return s
}

func (e *Entry) list(key string) []string {
	n := e.value(key)
	if s, ok := scalar(n); ok {
		return []string{s}
	}
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	var list []string
	for _, c := range n.Content {
		if s, ok := scalar(c); ok {
			list = append(list, s)
		}
	}
	return list
}

// time reads an RFC 3339 timestamp, or a plain date as midnight UTC.
func (e *Entry) time(key string) time.Time {
	s, ok := scalar(e.value(key))
	if !ok {
		return time.Time{}
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t
	}
	t, _ := time.Parse(time.DateOnly, s)
	return t
}

func (e *Entry) value(key string) *yaml.Node {
	i := e.index(key)
	if i < 0 {
		return nil
	}
	return e.pairs()[i+1]
}

// scalar returns the text of n, following an alias, if it is a scalar
// other than null.
func scalar(n *yaml.Node) (string, bool) {
	if n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		return "", false
	}
	return n.Value, true
}
