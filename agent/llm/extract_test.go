package llm

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestExtractJSON(t *testing.T) {
	tests := []struct {
		name, text, want string // want "" expects an error
	}{
		{"bare", goodReply, goodReply},
		{"spaces", "\n\n  " + goodReply + "\n", goodReply},
		{"json fence", "```json\n" + goodReply + "\n```", goodReply},
		{"bare fence", "```\n" + goodReply + "\n```\n", goodReply},
		{"prose and fence", "Here you go:\n\n```JSON\n" + goodReply + "\n```\n\nHope that helps {really}.", goodReply},
		{"prose around", "Sure. " + goodReply + " Done.", goodReply},
		{"braces in prose first", "Use {curly} braces: " + goodReply, goodReply},
		{"nested", `x {"a":{"b":[1,{"c":2}]}} y`, `{"a":{"b":[1,{"c":2}]}}`},
		{"braces in strings", `{"s":"} { ` + "```" + `"}`, `{"s":"} { ` + "```" + `"}`},
		{"fence holding prose, object outside", "```\nno json here\n```\n" + goodReply, goodReply},
		{"first of two objects", `{"a":1} and {"b":2}`, `{"a":1}`},
		{"array only", `[1, 2]`, ""},
		{"cut off", `{"summary": "we cho`, ""},
		{"prose only", "I cannot help with that.", ""},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := extractJSON([]byte(tt.text))
			if tt.want == "" {
				if err == nil {
					t.Errorf("got %s, want an error", got)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Errorf("got %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}

// FuzzExtractJSON: whatever the text, what is found is one JSON object.
func FuzzExtractJSON(f *testing.F) {
	f.Add([]byte(goodReply))
	f.Add([]byte("Here:\n```json\n" + goodReply + "\n```\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, text []byte) {
		got, err := extractJSON(text)
		if err != nil {
			return
		}
		var v map[string]any
		if !json.Valid(got) || json.Unmarshal(got, &v) != nil || !bytes.Contains(text, bytes.TrimSpace(got)) {
			t.Errorf("extracted %q, not an object of the text", got)
		}
	})
}

// FuzzExtractJSONProse: an object in prose (without braces or fences) is
// found whole, fenced or not.
func FuzzExtractJSONProse(f *testing.F) {
	f.Add("Here is the result:", "Anything else?", goodReply)
	f.Add("", "", `{}`)
	f.Fuzz(func(t *testing.T, before, after, object string) {
		var v map[string]any
		if json.Unmarshal([]byte(object), &v) != nil || strings.ContainsAny(before+after, "{`") {
			return
		}
		want, _ := json.Marshal(v)
		for _, text := range []string{before + object + after, before + "\n```json\n" + object + "\n```\n" + after} {
			got, err := extractJSON([]byte(text))
			if err != nil {
				t.Fatalf("%q: %v", text, err)
			}
			var g map[string]any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatal(err)
			}
			if back, _ := json.Marshal(g); !bytes.Equal(back, want) {
				t.Errorf("%q: got %s, want %s", text, back, want)
			}
		}
	})
}
