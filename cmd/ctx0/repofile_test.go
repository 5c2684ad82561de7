package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// repoRoot is the repository's root, from this package's folder, which is
// where go test runs.
const repoRoot = "../.."

// cmdRepofile copies a file of the repository's test data into the
// script's work folder: repofile SRC DST [NAME=VALUE...], SRC from the
// repository's root. Each NAME=VALUE replaces the placeholder <NAME> with
// VALUE escaped for a JSON string, so that published hook payloads, whose
// publishers put <TRANSCRIPT> and <CWD> where their own paths were, can
// be handed to ctx0 with the script's paths and nothing else changed.
func cmdRepofile(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! repofile")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: repofile SRC DST [NAME=VALUE...]")
	}
	src := filepath.Join(repoRoot, filepath.FromSlash(args[0]))
	if !filepath.IsLocal(filepath.FromSlash(args[0])) {
		ts.Fatalf("repofile: %s is not inside the repository", args[0])
	}
	data, err := os.ReadFile(src)
	ts.Check(err)
	text := string(data)
	for _, kv := range args[2:] {
		name, value, ok := strings.Cut(kv, "=")
		if !ok {
			ts.Fatalf("repofile: %q is not NAME=VALUE", kv)
		}
		placeholder := "<" + name + ">"
		if !strings.Contains(text, placeholder) {
			ts.Fatalf("repofile: %s has no %s", args[0], placeholder)
		}
		quoted, err := json.Marshal(value)
		ts.Check(err)
		text = strings.ReplaceAll(text, placeholder, string(quoted[1:len(quoted)-1]))
	}
	dst := ts.MkAbs(args[1])
	ts.Check(os.MkdirAll(filepath.Dir(dst), 0o755))
	ts.Check(os.WriteFile(dst, []byte(text), 0o644))
}
