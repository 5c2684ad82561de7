package config

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

type syncConfig struct {
	Auto        bool          `yaml:"auto"`
	StartBudget time.Duration `yaml:"start_budget"`
}

type typeInfo struct {
	Folder string `yaml:"folder"`
}

const file = `# settings
author:
  name: Sam

sync:
  # automatic sync
  auto: true
  indx: 3
types:
  recipe:
    foldr: recipes
llm: {provider: offline}
ingest:
`

func TestDecode(t *testing.T) {
	f, err := Parse(".ctx0/config.yaml", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		section string
		into    any
		want    string // "" for no error
	}{
		{"sync", &syncConfig{}, `.ctx0/config.yaml:8: unknown key "indx" in sync`},
		{"types", &map[string]typeInfo{}, `.ctx0/config.yaml:11: unknown key "foldr" in types`},
		{"author", &struct {
			Name string `yaml:"name"`
		}{}, ""},
		{"llm", &struct {
			Provider string `yaml:"provider"`
		}{}, ""},
		{"llm", &struct {
			Model string `yaml:"model"`
		}{}, `.ctx0/config.yaml:12: unknown key "provider" in llm`},
		{"ingest", &struct{}{}, ""},
		{"curator", &struct{}{}, ""},
		{"sync", &struct {
			Auto int `yaml:"auto"`
		}{}, ".ctx0/config.yaml:7: sync: cannot unmarshal !!bool `true` into int"},
	}
	for _, tt := range tests {
		err := f.Decode(tt.section, tt.into)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if !strings.HasPrefix(got, tt.want) || (tt.want == "") != (got == "") {
			t.Errorf("Decode(%s, %T) = %q, want %q", tt.section, tt.into, got, tt.want)
		}
	}
}

func TestDecodeKeepsDefaults(t *testing.T) {
	f, err := Parse("c.yaml", []byte("sync:\n  auto: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := syncConfig{StartBudget: time.Second}
	if err := f.Decode("sync", &got); err != nil {
		t.Fatal(err)
	}
	if want := (syncConfig{Auto: true, StartBudget: time.Second}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestDecodeFlowFile(t *testing.T) {
	f, err := Parse("c.yaml", []byte("{sync: {auto: true, indx: 3}, author: {name: Sam}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	var s syncConfig
	if err := f.Decode("sync", &s); err == nil || err.Error() != `c.yaml:1: unknown key "indx" in sync` {
		t.Errorf("Decode(sync) = %v", err)
	}
	var a struct {
		Name string `yaml:"name"`
	}
	if err := f.Decode("author", &a); err != nil || a.Name != "Sam" {
		t.Errorf("Decode(author) = %v, %+v", err, a)
	}
}

func TestCheck(t *testing.T) {
	known := []string{"sync", "curator", "llm"}
	for _, tt := range []struct {
		data     string
		warnings []string
		err      string
	}{
		{data: "sync: {}\nllm: {}\n"},
		// A name a letter or two from a known one is a person's typo.
		{data: "sync: {}\ncuratr:\n  every: 1d\n", err: `c.yaml:2: unknown section "curatr"; the sections are curator, llm, sync`},
		// Any other is a section a newer ctx0 reads: kept, ignored, said.
		{data: "sync: {}\ntelemetry:\n  on: true\n", warnings: []string{`c.yaml:2: unknown section "telemetry", perhaps from a newer ctx0: ignored`}},
		// A file of a newer version: even a name close to a known one.
		{data: "version: 2\ncuratr: {}\n", warnings: []string{
			"c.yaml: written by a newer ctx0 (version 2; this one reads 1): the settings this version does not know are ignored",
			`c.yaml:2: unknown section "curatr", perhaps from a newer ctx0: ignored`}},
		{data: "version: 1\nsync: {}\n"},
	} {
		f, err := Parse("c.yaml", []byte(tt.data))
		if err != nil {
			t.Fatal(err)
		}
		warnings, err := f.Check(known...)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.err || !slices.Equal(warnings, tt.warnings) {
			t.Errorf("Check(%q) = %q, %q; want %q, %q", tt.data, warnings, got, tt.warnings, tt.err)
		}
	}
}

func TestNewerVersionIgnoresUnknownKeys(t *testing.T) {
	f, err := Parse("c.yaml", []byte("version: 3\nsync:\n  auto: true\n  jitter: 5s\n"))
	if err != nil {
		t.Fatal(err)
	}
	var s syncConfig
	if err := f.Decode("sync", &s); err != nil || !s.Auto {
		t.Errorf("Decode = %v, %+v", err, s)
	}
	f, err = Parse("c.yaml", []byte("version: 1\nsync:\n  auto: true\n  jitter: 5s\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Decode("sync", &s); err == nil || err.Error() != `c.yaml:4: unknown key "jitter" in sync` {
		t.Errorf("Decode = %v", err)
	}
	for _, bad := range []string{"version: two\n", "version: 0\n", "version: [1]\n"} {
		if _, err := Parse("c.yaml", []byte(bad)); err == nil || !strings.HasPrefix(err.Error(), "c.yaml:1: version: want a whole number") {
			t.Errorf("Parse(%q) = %v", bad, err)
		}
	}
}

type llmConfig struct {
	Provider string   `yaml:"provider"`
	Command  []string `yaml:"command"`
	Model    string   `yaml:"model"`
}

func TestWithout(t *testing.T) {
	const data = `llm:
  <<: {provider: command, command: [sh, -c, id]}
  model: m
  provider: command
embeddings: {provider: offline}
sync:
  auto: true
`
	f, err := Parse("c.yaml", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	w := f.Without("llm", "provider", "command").Without("embeddings").Without("sync", "auto")
	var got llmConfig
	if err := w.Decode("llm", &got); err != nil {
		t.Fatal(err)
	}
	// The merge key goes too: it would bring the command back.
	if want := (llmConfig{Model: "m"}); !reflect.DeepEqual(got, want) {
		t.Errorf("Decode(llm) without provider, command = %+v, want %+v", got, want)
	}
	if w.Section("embeddings") != nil {
		t.Error("Section(embeddings) is withheld, but is not nil")
	}
	var e llmConfig
	if err := w.Decode("embeddings", &e); err != nil || !reflect.DeepEqual(e, llmConfig{}) {
		t.Errorf("Decode(embeddings) = %v, %+v", err, e)
	}
	s := syncConfig{StartBudget: time.Second}
	if err := w.Decode("sync", &s); err != nil || s != (syncConfig{StartBudget: time.Second}) {
		t.Errorf("Decode(sync) = %v, %+v", err, s)
	}
	// f itself is unchanged, and Value sees through aliases and merges.
	if err := f.Decode("llm", &got); err != nil || got.Provider != "command" || len(got.Command) != 3 {
		t.Errorf("f.Decode(llm) = %v, %+v", err, got)
	}
	for _, tt := range []struct {
		section, key string
		want         any
	}{
		{"llm", "command", []any{"sh", "-c", "id"}},
		{"sync", "auto", true},
		{"sync", "start_budget", nil},
	} {
		v, ok, err := w.Value(tt.section, tt.key)
		if err != nil || ok != (tt.want != nil) || !reflect.DeepEqual(v, tt.want) {
			t.Errorf("Value(%s, %s) = %v, %v, %v; want %v", tt.section, tt.key, v, ok, err, tt.want)
		}
	}
	// Into a map, as into a struct: the withheld keys are not there.
	m := map[string]any{}
	if err := w.Decode("llm", &m); err != nil || !reflect.DeepEqual(m, map[string]any{"model": "m"}) {
		t.Errorf("Decode(llm) into a map = %v, %v", err, m)
	}
	// A typo is reported even in a withheld key's section.
	f, err = Parse("c.yaml", []byte("llm:\n  provider: command\n  modle: x\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Without("llm", "provider").Decode("llm", &got); err == nil || err.Error() != `c.yaml:3: unknown key "modle" in llm` {
		t.Errorf("Decode = %v", err)
	}
}

func TestParse(t *testing.T) {
	for _, tt := range []struct{ data, want string }{
		{"", ""},
		{"# only comments\n", ""},
		{"- a\n- b\n", "c.yaml:1: want a mapping of sections"},
		{"sync: [\n", "parse config c.yaml: "},
	} {
		_, err := Parse("c.yaml", []byte(tt.data))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if !strings.HasPrefix(got, tt.want) || (tt.want == "") != (got == "") {
			t.Errorf("Parse(%q) = %q, want %q", tt.data, got, tt.want)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(file))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		cf, err := Parse("c.yaml", data)
		if err != nil {
			return
		}
		var s syncConfig
		_ = cf.Decode("sync", &s)
		_ = cf.Without("sync", "auto").Decode("sync", &s)
		_, _, _ = cf.Value("sync", "auto")
		_, _ = cf.Check("sync")
	})
}
