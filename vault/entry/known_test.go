package entry

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
	"time"
)

func TestKnownFields(t *testing.T) {
	data, err := os.ReadFile("testdata/roundtrip/example.md")
	if err != nil {
		t.Fatal(err)
	}
	e := mustParse(t, string(data))
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"Title", e.Title(), "Sarah Chen"},
		{"Type", e.Type(), "contact"},
		{"Aliases", e.Aliases(), []string{"Sarah", "S. Chen"}},
		{"Tags", e.Tags(), []string{"investor"}},
		{"Project", e.Project(), "bot0"},
		{"Pinned", e.Pinned(), false},
		{"Source", e.Source(), "librarian"},
		{"Created", e.Created(), time.Date(2026, 1, 28, 10, 0, 0, 0, time.UTC)},
		{"Updated", e.Updated(), time.Date(2026, 2, 1, 9, 30, 0, 0, time.UTC)},
		{"LinkNames", e.LinkNames(), []string{"projects/bot0"}},
		{"SupersededBy", e.SupersededBy(), "contacts/sarah-chen-2"},
		{"Archived", e.Archived(), time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)},
		{"Keys", e.Keys(), []string{"title", "type", "aliases", "tags", "project", "pinned", "source", "created", "updated", "links", "superseded_by", "archived"}},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s() = %#v, want %#v", c.name, c.got, c.want)
		}
	}
}

func TestKnownFieldsLenient(t *testing.T) {
	e := mustParse(t, `---
title: 1984
type: ~
aliases: Sarah
tags: [a, ~, [nested], 2, b]
project: [not, text]
pinned: "true"
created: 2026-01-28
updated: "2026-02-01T09:30:00+01:00"
archived: someday
links: &l [x]
superseded_by: *l
---
`)
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"Title", e.Title(), "1984"},
		{"Type", e.Type(), ""},
		{"Aliases", e.Aliases(), []string{"Sarah"}},
		{"Tags", e.Tags(), []string{"a", "2", "b"}},
		{"Project", e.Project(), ""},
		{"Pinned", e.Pinned(), false},
		{"Source", e.Source(), ""},
		{"Created", e.Created(), time.Date(2026, 1, 28, 0, 0, 0, 0, time.UTC)},
		{"Updated", e.Updated().UTC(), time.Date(2026, 2, 1, 8, 30, 0, 0, time.UTC)},
		{"Archived", e.Archived(), time.Time{}},
		{"LinkNames", e.LinkNames(), []string{"x"}},
		{"SupersededBy", e.SupersededBy(), ""},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s() = %#v, want %#v", c.name, c.got, c.want)
		}
	}
	var none Entry
	if none.Title() != "" || none.Tags() != nil || !none.Created().IsZero() || none.Pinned() {
		t.Error("accessors of an empty entry return values")
	}
}

func TestGetAndFields(t *testing.T) {
	e := mustParse(t, `---
title: Sarah
created: 2026-01-28T10:00:00Z
day: 2026-01-28
count: 3
ratio: 0.5
on: true
nothing:
list: [a, 1]
map: {b: [x], 1: one, 2026-01-01: new year}
ref: &r {k: v}
again: *r
inner: {a: &i [x], b: *i}
---
`)
	want := map[string]any{
		"title":   "Sarah",
		"created": "2026-01-28T10:00:00Z",
		"day":     "2026-01-28",
		"count":   3,
		"ratio":   0.5,
		"on":      true,
		"nothing": nil,
		"list":    []any{"a", 1},
		"map":     map[string]any{"b": []any{"x"}, "1": "one", "2026-01-01": "new year"},
		"ref":     map[string]any{"k": "v"},
		"again":   map[string]any{"k": "v"},
		"inner":   map[string]any{"a": []any{"x"}, "b": []any{"x"}},
	}
	if got := e.Fields(); !reflect.DeepEqual(got, want) {
		t.Errorf("Fields() = %#v, want %#v", got, want)
	}
	for k, w := range want {
		if got, ok := e.Get(k); !ok || !reflect.DeepEqual(got, w) {
			t.Errorf("Get(%q) = %#v, %v, want %#v", k, got, ok, w)
		}
	}
	if _, ok := e.Get("missing"); ok {
		t.Error(`Get("missing") found something`)
	}
	if _, err := json.Marshal(e.Fields()); err != nil {
		t.Errorf("Fields() do not encode as JSON: %v", err)
	}
}
