package entry

import (
	"testing"
	"time"
)

// setOneByOne is what SetFields must equal: Set, field after field.
func setOneByOne(e *Entry, fields []Field) error {
	for _, f := range fields {
		if err := e.Set(f.Key, f.Value); err != nil {
			return err
		}
	}
	return nil
}

func TestSetFieldsIsSetInTurn(t *testing.T) {
	at := time.Date(2026, 1, 28, 10, 30, 0, 123, time.FixedZone("x", 3600))
	tests := []struct {
		name   string
		start  string // the entry's text; "" for New()
		fields []Field
	}{
		{"new entry", "", []Field{{"title", "Deploy window"}, {"type", "fact"}, {"tags", []string{"ops", "deploy"}}, {"pinned", true}, {"created", at}, {"updated", at}}},
		{"awkward strings", "", []Field{{"title", "a: b # c"}, {"project", "'quoted' \"both\""}, {"aliases", []string{"x, y", "- z", "ünï"}}, {"source", "yes"}, {"links", []string{"[[a]]"}}}},
		{"multi-line", "", []Field{{"title", "one\ntwo"}, {"type", "note"}}},
		{"empty list", "", []Field{{"tags", []string{}}, {"title", ""}}},
		{"after existing fields", "---\n  title: Old\n  type: note\n---\nBody.\n", []Field{{"tags", []string{"a"}}, {"pinned", false}}},
		{"an existing key", "---\ntitle: Old # kept comment\n---\nBody.\n", []Field{{"tags", []string{"a"}}, {"title", "New"}, {"type", "fact"}}},
		{"a key twice", "", []Field{{"title", "One"}, {"type", "fact"}, {"title", "Two"}}},
		{"CRLF", "---\r\ntitle: Old\r\n---\r\nBody.\r\n", []Field{{"type", "fact"}, {"tags", []string{"a", "b"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			open := func() *Entry {
				if tt.start == "" {
					return New()
				}
				e, err := Parse([]byte(tt.start))
				if err != nil {
					t.Fatal(err)
				}
				return e
			}
			want, got := open(), open()
			if err := setOneByOne(want, tt.fields); err != nil {
				t.Fatal(err)
			}
			if err := got.SetFields(tt.fields); err != nil {
				t.Fatal(err)
			}
			if string(got.Bytes()) != string(want.Bytes()) {
				t.Errorf("SetFields gave\n%s\nSet in turn gave\n%s", got.Bytes(), want.Bytes())
			}
		})
	}
}

// FuzzSetFields: SetFields gives the bytes of Set in turn, on any
// frontmatter and values.
func FuzzSetFields(f *testing.F) {
	f.Add("---\ntitle: Old\n---\nBody.\n", "A title: with colon", "tag", "note")
	f.Add("", "", "", "")
	f.Fuzz(func(t *testing.T, start, title, tag, typ string) {
		open := func() *Entry {
			if start == "" {
				return New()
			}
			e, err := Parse([]byte(start))
			if err != nil {
				return nil
			}
			return e
		}
		want, got := open(), open()
		if want == nil {
			return
		}
		fields := []Field{{"title", title}, {"tags", []string{tag, "b"}}, {"type", typ}, {"pinned", true}}
		werr := setOneByOne(want, fields)
		gerr := got.SetFields(fields)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("Set in turn: %v; SetFields: %v", werr, gerr)
		}
		if werr == nil && string(got.Bytes()) != string(want.Bytes()) {
			t.Fatalf("SetFields gave\n%q\nSet in turn gave\n%q", got.Bytes(), want.Bytes())
		}
	})
}

// BenchmarkSetFields is a new entry's fields set at once (SetFields) and
// one by one (Set), the way NewEntry made them before.
func BenchmarkSetFields(b *testing.B) {
	at := time.Date(2026, 1, 28, 10, 30, 0, 0, time.UTC)
	fields := []Field{{"title", "The deploy window opens at nine"}, {"type", "fact"}, {"tags", []string{"ops", "deploy"}},
		{"source", "agent"}, {"created", at}, {"updated", at}}
	for _, bb := range []struct {
		name string
		set  func(*Entry, []Field) error
	}{{"at once", (*Entry).SetFields}, {"one by one", setOneByOne}} {
		b.Run(bb.name, func(b *testing.B) {
			for b.Loop() {
				if err := bb.set(New(), fields); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
