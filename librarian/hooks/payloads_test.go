package hooks

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/internal/golden"
)

// payloads is the folder of the hook payloads the agents wrote, captured
// from the running agents and published (see its SOURCES.md).
const payloads = "../../integration/testdata/payloads"

// TestRealPayloads reads every published payload of every agent as the
// hook does, and compares what it takes from each (the role the event
// has for ctx0, the session, the transcript and the working folder) with
// testdata/payloads.golden. Every agent has real payloads, and among them
// the event at which its sessions start.
func TestRealPayloads(t *testing.T) {
	var got strings.Builder
	for _, a := range Agents {
		if a.Name == ClaudeCodeAgent.Name {
			continue // its real payloads are the transcripts' own tests
		}
		files, err := filepath.Glob(filepath.Join(payloads, a.Name, "*", "*.json"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no published payloads in %s (%v)", a.Name, payloads, err)
		}
		var start bool
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			in, err := a.parseInput(data)
			if err != nil {
				t.Errorf("%s: %v", f, err)
				continue
			}
			name, _ := filepath.Rel(payloads, f)
			if event := strings.TrimSuffix(filepath.Base(f), ".json"); in.HookEventName != event {
				t.Errorf("%s: hook_event_name %q", name, in.HookEventName)
			}
			if in.SessionID == "" {
				t.Errorf("%s: no session", name)
			}
			role := a.role(in.HookEventName)
			start = start || role == "start"
			if role == "" {
				role = "-"
			}
			fmt.Fprintf(&got, "%s %s session=%s transcript=%q cwd=%q", filepath.ToSlash(name), role, in.SessionID, in.TranscriptPath, in.CWD)
			for _, f := range []struct{ k, v string }{{"source", in.Source}, {"reason", in.Reason}, {"trigger", in.Trigger}} {
				if f.v != "" {
					fmt.Fprintf(&got, " %s=%s", f.k, f.v)
				}
			}
			got.WriteString("\n")
		}
		if !start {
			t.Errorf("%s: no published payload of %s", a.Name, a.Start)
		}
	}
	golden.Check(t, filepath.Join("testdata", "payloads.golden"), []byte(got.String()), *update)
}
