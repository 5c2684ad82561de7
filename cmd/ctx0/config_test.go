package main

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/agent/llm"
	"github.com/ctx0/ctx0/curator"
	"github.com/ctx0/ctx0/extractor"
	"github.com/ctx0/ctx0/index"
	"github.com/ctx0/ctx0/internal/config"
	"github.com/ctx0/ctx0/sessions"
	"github.com/ctx0/ctx0/vault"
)

// TestDocumentedConfigLoads checks that every setting the README, the
// config file that ctx0 init writes and the packages' doc comments show
// is one that the strict decoding of .ctx0/config.yaml accepts.
func TestDocumentedConfigLoads(t *testing.T) {
	examples := map[string]string{}
	readme := read(t, "../../README.md")
	for i, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(readme, -1) {
		examples["README.md block "+string(rune('1'+i))] = m[1]
	}
	examples["the hint of proposeAutoSync"] = "sync:\n  auto: true\n"
	examples["templates/vault/_ctx0/config.yaml"] = uncomment(read(t, "../../templates/vault/_ctx0/config.yaml"))
	for _, p := range []string{"../../agent/llm/config.go", "../../extractor/config.go", "../../sessions/config.go", "../../curator/config.go"} {
		examples[p] = docExample(read(t, p))
	}
	for name, text := range examples {
		if strings.TrimSpace(text) == "" {
			t.Errorf("%s: no example found", name)
			continue
		}
		f, err := config.Parse(name, []byte(text))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		warnings, err := f.Check(configSections()...)
		if len(warnings) > 0 {
			t.Errorf("%s: %v", name, warnings)
		}
		errs := []error{err}
		_, err = vault.ParseConfig(f)
		errs = append(errs, err)
		_, err = llm.ParseConfig(f)
		errs = append(errs, err)
		_, err = extractor.ParseConfig(f)
		errs = append(errs, err)
		_, err = sessions.ParseConfig(f)
		errs = append(errs, err)
		_, err = curator.ParseConfig(f)
		errs = append(errs, err)
		_, err = index.ParseConfig(f)
		errs = append(errs, err)
		for _, err := range errs {
			if err != nil {
				t.Errorf("%s: %v\n%s", name, err, text)
			}
		}
	}
}

// TestInitConfigShowsDefaults checks that the config file ctx0 init writes
// names every section ctx0 reads, and that what it sets is the default:
// decoding it gives what an empty file gives.
func TestInitConfigShowsDefaults(t *testing.T) {
	text := read(t, "../../templates/vault/_ctx0/config.yaml")
	for _, s := range configSections() {
		if !regexp.MustCompile(`(?m)^(# )?` + s + `:`).MatchString(text) {
			t.Errorf("templates/vault/_ctx0/config.yaml has no %s section", s)
		}
	}
	got, err := config.Parse("config.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	empty, err := config.Parse("empty.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	type parsed struct{ vault, llm, extractor, ingest, curator, index any }
	parse := func(f *config.File) parsed {
		var p parsed
		var errs [6]error
		p.vault, errs[0] = vault.ParseConfig(f)
		p.llm, errs[1] = llm.ParseConfig(f)
		p.extractor, errs[2] = extractor.ParseConfig(f)
		p.ingest, errs[3] = sessions.ParseConfig(f)
		p.curator, errs[4] = curator.ParseConfig(f)
		p.index, errs[5] = index.ParseConfig(f)
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	if g, w := parse(got), parse(empty); !reflect.DeepEqual(g, w) {
		t.Errorf("the config init writes is not the defaults:\n got %+v\nwant %+v", g, w)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// uncomment turns the commented-out sections of a config file on: a
// commented "key:" line followed by commented, indented lines, and those.
func uncomment(text string) string {
	lines := strings.Split(text, "\n")
	indented := func(i int) bool { return i < len(lines) && strings.HasPrefix(lines[i], "#   ") }
	key := regexp.MustCompile(`^# [a-z_]+:\s*$`)
	var out []string
	for i := 0; i < len(lines); i++ {
		if !key.MatchString(lines[i]) || !indented(i+1) {
			out = append(out, lines[i])
			continue
		}
		out = append(out, lines[i][2:])
		for i+1 < len(lines) && indented(i+1) {
			i++
			out = append(out, lines[i][2:])
		}
	}
	return strings.Join(out, "\n")
}

// docExample is the YAML example in the doc comment of a package's Config:
// its lines indented by a tab after "//".
func docExample(src string) string {
	var b strings.Builder
	for _, l := range strings.Split(src, "\n") {
		if y, ok := strings.CutPrefix(l, "//\t"); ok {
			b.WriteString(y + "\n")
		}
	}
	return b.String()
}
