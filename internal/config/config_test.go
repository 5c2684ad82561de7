package config

import (
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
	f, err := Parse("c.yaml", []byte("sync: {}\ncuratr:\n  every: 1d\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Check("sync", "curator", "llm"); err == nil || err.Error() != `c.yaml:2: unknown section "curatr"; the sections are curator, llm, sync` {
		t.Errorf("Check = %v", err)
	}
	if err := f.Check("sync", "curatr"); err != nil {
		t.Errorf("Check = %v", err)
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
		_ = cf.Check("sync")
	})
}
