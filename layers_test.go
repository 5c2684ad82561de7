package ctx0_test

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/ctx0/ctx0"

// groundFloor reports whether pkg is of the ground floor, which every
// layer uses and which imports no domain package: internal/*, the
// redactor, each agent's integration files, and the entry templates.
func groundFloor(pkg string) bool {
	rel := strings.TrimPrefix(strings.TrimPrefix(pkg, module), "/")
	for _, p := range []string{"internal", "redact", "integration", "templates"} {
		if rel == p || strings.HasPrefix(rel, p+"/") {
			return true
		}
	}
	return false
}

// TestLayers checks that imports run one way, down the layers, with the
// build's own import graph (go list -deps, tests left out): the ground
// floor imports no domain package but leaves, and the model providers do not import
// the vault. A package that breaks a rule is named with what it imports.
func TestLayers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list over the module")
	}
	deps := moduleDeps(t)
	for pkg, imports := range deps {
		if !groundFloor(pkg) {
			continue
		}
		for _, d := range imports {
			// A leaf (vault/entry, the file format) imports nothing of
			// ctx0, so anything may use it.
			if !groundFloor(d) && len(deps[d]) > 0 {
				t.Errorf("%s is of the ground floor and imports the domain package %s", pkg, d)
			}
		}
	}
	forbid := func(pkg string, above ...string) {
		t.Helper()
		for p, imports := range deps {
			if p != module+"/"+pkg && !strings.HasPrefix(p, module+"/"+pkg+"/") {
				continue
			}
			for _, d := range imports {
				for _, a := range above {
					if d == module+"/"+a || strings.HasPrefix(d, module+"/"+a+"/") {
						t.Errorf("%s imports %s", p, d)
					}
				}
			}
		}
	}
	forbid("agent/llm", "vault")
	forbid("vault", "index", "agent", "librarian", "curator", "extractor", "export", "mcp", "cmd", "daemon", "ui")
	forbid("extractor", "curator")
	forbid("extractor", "librarian")
	// Past sessions sit beside the index, below the librarian that fills
	// them and the extractor that reads them; both stores share the query
	// language (index/query) and nothing else of each other.
	forbid("sessions", "librarian", "extractor", "curator")
	for _, d := range deps[module+"/sessions"] {
		if d == module+"/index" {
			t.Errorf("%s imports %s", module+"/sessions", d)
		}
	}
	forbid("transcript", "sessions", "librarian", "vault", "index")
}

// moduleDeps is each package of the module and the packages of the module
// it imports, directly or not.
func moduleDeps(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Deps", "./...")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	deps := map[string][]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p struct {
			ImportPath string
			Deps       []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		for _, d := range p.Deps {
			if d == module || strings.HasPrefix(d, module+"/") {
				deps[p.ImportPath] = append(deps[p.ImportPath], d)
			}
		}
		if _, ok := deps[p.ImportPath]; !ok {
			deps[p.ImportPath] = nil
		}
	}
	if !slices.ContainsFunc(keys(deps), func(p string) bool { return strings.HasSuffix(p, "/vault") }) {
		t.Fatalf("go list found no vault package: %d packages", len(deps))
	}
	return deps
}

func keys(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
