package hooks

import (
	"context"
	"encoding/json"
	"testing"
)

// TestSessionStartOutput: each agent gets the context block in the form it
// takes extra context: plain text for Claude Code, hookSpecificOutput JSON
// (and nothing else on stdout) for Codex and Gemini CLI; no block, no
// output.
func TestSessionStartOutput(t *testing.T) {
	const block = "<memory>\nproject /home/marco/projects/spotter \"quoted\" & <tags>\n</memory>\n"
	for _, a := range Agents {
		t.Run(a.Name, func(t *testing.T) {
			_, transcript, o := hookEnv(t)
			o.Context = func(ctx context.Context, cwd string) (string, error) { return block, nil }
			out := Handle(t.Context(), a, input(a.Start, transcript, `,"source":"startup"`), o)
			if !a.JSONContext {
				if out != block {
					t.Errorf("printed %q", out)
				}
				return
			}
			var got struct {
				HookSpecificOutput struct {
					HookEventName     string `json:"hookEventName"`
					AdditionalContext string `json:"additionalContext"`
				} `json:"hookSpecificOutput"`
				AdditionalContext string `json:"additional_context"` // Cursor's
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("printed %q: not JSON: %v", out, err)
			}
			switch {
			case a.Flat && got.AdditionalContext != block:
				t.Errorf("printed %q", out)
			case !a.Flat && (got.HookSpecificOutput.HookEventName != "SessionStart" || got.HookSpecificOutput.AdditionalContext != block):
				t.Errorf("printed %q", out)
			}
			o.Context = func(ctx context.Context, cwd string) (string, error) { return "", nil }
			if out := Handle(t.Context(), a, input(a.Start, transcript, ""), o); out != "" {
				t.Errorf("printed %q for an empty block", out)
			}
		})
	}
}

// TestAgentEvents: an event ctx0 did not install itself for does nothing,
// and one agent's hook never takes another's command for its own.
func TestAgentEvents(t *testing.T) {
	for _, a := range Agents {
		for _, e := range a.Events {
			if a.role(e) == "" {
				t.Errorf("%s: installed for %s, which it does not handle", a.Name, e)
			}
		}
		if a.role("BeforeTool") != "" {
			t.Errorf("%s handles BeforeTool", a.Name)
		}
		for _, b := range Agents {
			if got := a.isOurs(b.Command("/usr/local/bin/ctx0", "/home/sam/notes")); got != (a.Name == b.Name) {
				t.Errorf("%s.isOurs(%s's command) = %v", a.Name, b.Name, got)
			}
		}
	}
}
