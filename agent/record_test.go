package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A run record names its run: read under another id (its file renamed,
// or written by someone else), it is refused, so that what it says never
// stands for that run.
func TestRunRecordIsItsFilesRun(t *testing.T) {
	const id = "20260128T100000.000Z-0a1b2c3d"
	tests := []struct {
		name, data string
		want       string // in the error; "" for none
	}{
		{"its own", `{"id":"` + id + `","status":"done"}`, ""},
		{"another run", `{"id":"20260128T100000.000Z-ffffffff","status":"done"}`, `says it is run "20260128T100000.000Z-ffffffff"`},
		{"a path", `{"id":"../../config","status":"done"}`, `says it is run "../../config"`},
		{"no id", `{"status":"done"}`, `says it is run ""`},
		{"not JSON", `{"id":`, "unexpected end of JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := parseRun(id, []byte(tt.data))
			if tt.want == "" {
				if err != nil || r.ID != id || r.Created == nil {
					t.Fatalf("parseRun = %+v, %v", r, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("parseRun = %v; want an error saying %q", err, tt.want)
			}
		})
	}
	// Get names the file.
	root := t.TempDir()
	dir := filepath.Join(root, filepath.FromSlash(runsDir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, id+".json"), []byte(tests[1].data), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Get(t.Context(), root, id)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, id+".json")) || errors.Is(err, ErrNoRun) {
		t.Errorf("Get = %v; want the file named", err)
	}
}

// FuzzParseRun: whatever a run record holds, one that is read is the run
// it was read as, with its lists never null.
func FuzzParseRun(f *testing.F) {
	const id = "20260128T100000.000Z-0a1b2c3d"
	f.Add(id, `{"id":"`+id+`","status":"done","created":["a.md"]}`)
	f.Add(id, `{"id":"../x"}`)
	f.Add(id, "")
	f.Fuzz(func(t *testing.T, id, data string) {
		r, err := parseRun(id, []byte(data))
		if err != nil {
			return
		}
		if r.ID != id || r.Created == nil || r.Updated == nil || r.Deleted == nil {
			t.Fatalf("parseRun(%q) = %+v", id, r)
		}
	})
}
