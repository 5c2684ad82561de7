package vault

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ctx0/ctx0/vault/entry"
)

// setField parses value for field and sets it, checking the known fields.
func (v *Vault) setField(ctx context.Context, name string, e *entry.Entry, field, value string) error {
	value = strings.TrimSpace(value)
	switch field {
	case entry.FieldTitle, entry.FieldProject, entry.FieldSupersededBy:
		if strings.ContainsAny(value, "\n\r") {
			return fmt.Errorf("set %s: must be one line", field)
		}
		if value == "" {
			if field == entry.FieldTitle {
				return fmt.Errorf("set title: must not be empty")
			}
			e.Delete(field)
			return nil
		}
		return e.Set(field, value)
	case entry.FieldType:
		if _, ok := v.Config().Type(value); !ok {
			return v.checkMeta(Meta{Type: value})
		}
		return e.Set(field, value)
	case entry.FieldSource:
		if err := v.checkMeta(Meta{Type: "note", Source: value}); err != nil {
			return err
		}
		return e.Set(field, value)
	case entry.FieldPinned:
		b, err := strconv.ParseBool(value)
		if err != nil {
			return fmt.Errorf("set pinned: %q is not true or false", value)
		}
		return e.Set(field, b)
	case entry.FieldCreated, entry.FieldUpdated, entry.FieldArchived:
		t, err := ParseTime(value)
		if err != nil {
			return fmt.Errorf("set %s: %w", field, err)
		}
		return e.Set(field, t)
	case entry.FieldAliases, entry.FieldTags, entry.FieldLinks:
		list, err := parseList(value)
		if err != nil {
			return fmt.Errorf("set %s: %w", field, err)
		}
		if field == entry.FieldAliases {
			for _, a := range list {
				if err := v.checkAliasFree(ctx, a, name); err != nil {
					return err
				}
			}
		}
		return e.Set(field, list)
	}
	if err := e.SetYAML(field, value); err != nil {
		return fmt.Errorf("set %s: %w", field, err)
	}
	return nil
}

func ownsAlias(e *entry.Entry, a string) bool {
	return slices.ContainsFunc(e.Aliases(), func(x string) bool { return strings.EqualFold(x, a) })
}

// parseList reads "a, b" or a YAML list "[a, b]".
func parseList(s string) ([]string, error) {
	if strings.HasPrefix(s, "[") {
		var out []string
		if err := yaml.Unmarshal([]byte(s), &out); err != nil {
			return nil, fmt.Errorf("%q is not a list of strings", s)
		}
		return out, nil
	}
	out := []string{}
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// ParseTime reads an RFC 3339 time or a plain date (midnight UTC).
func ParseTime(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is not an RFC 3339 time (2026-01-28T10:00:00Z) or a date (2026-01-28)", s)
}
