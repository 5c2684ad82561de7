package vault

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctx0/ctx0/internal/config"
)

// writeConfig puts text in the vault's config file and reads it again, as
// the next command would.
func writeConfig(t *testing.T, v *Vault, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(v.Root(), ".ctx0", "config.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = v.readConfig()
}

// llmSection decodes what the vault applies of the llm section.
func llmSection(t *testing.T, f *config.File) map[string]any {
	t.Helper()
	m := map[string]any{}
	if err := f.Decode("llm", &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestTrustWithholdsUnapprovedSettings(t *testing.T) {
	for _, tt := range []struct {
		name       string
		approved   string // the config approved first ("" approves nothing more than init did)
		now        string
		unapproved []string
	}{
		{name: "nothing set", now: "author:\n  name: Sam\n"},
		{name: "offline is inert", now: "llm:\n  provider: offline\n  command: [sh]\nsync:\n  auto: false\nembeddings:\n  model: m\n"},
		{name: "a command", now: "llm:\n  provider: command\n  command: [sh, -c, id]\n", unapproved: []string{"llm.provider", "llm.command"}},
		{name: "approved", approved: "llm:\n  provider: command\n  command: [sh, -c, id]\n", now: "llm:\n  provider: command\n  command: [sh, -c, id]\n  timeout: 5s\n"},
		{name: "the command changed", approved: "llm:\n  provider: command\n  command: [sh, -c, id]\n", now: "llm:\n  provider: command\n  command: [sh, -c, whoami]\n", unapproved: []string{"llm.provider", "llm.command"}},
		// The approved key variable is never sent to a pulled address:
		// the group is withheld whole.
		{name: "a new address", approved: "llm:\n  provider: openai\n  api_key_env: OPENAI_API_KEY\n", now: "llm:\n  provider: openai\n  api_key_env: OPENAI_API_KEY\n  base_url: http://attacker/v1\n  model: m\n", unapproved: []string{"llm.provider", "llm.base_url", "llm.api_key_env", "llm.model"}},
		{name: "a removed address", approved: "llm:\n  provider: openai\n  base_url: http://mine/v1\n  api_key_env: K\n  model: m\n", now: "llm:\n  provider: openai\n  api_key_env: K\n", unapproved: []string{"llm.provider", "llm.api_key_env"}},
		{name: "one group of several", approved: "llm:\n  provider: claude-code\n", now: "llm:\n  provider: claude-code\nsync:\n  auto: true\nembeddings:\n  url: http://x/v1\n  model: m\n", unapproved: []string{"embeddings.url", "sync.auto"}},
		// A merge key spells the same settings another way.
		{name: "a merge key", now: "llm:\n  <<: {provider: command, command: [sh]}\n", unapproved: []string{"llm.provider", "llm.command"}},
		{name: "flow style", now: "{llm: {provider: command, command: [sh]}, sync: {auto: true}}\n", unapproved: []string{"llm.provider", "llm.command", "sync.auto"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := testVault(t)
			if tt.approved != "" {
				writeConfig(t, v, tt.approved)
				if _, err := v.Approve(); err != nil {
					t.Fatal(err)
				}
			}
			writeConfig(t, v, tt.now)
			if err := v.ConfigError(); err != nil {
				t.Fatal(err)
			}
			tr := v.Trust()
			if !slices.Equal(tr.Unapproved, tt.unapproved) && len(tr.Unapproved)+len(tt.unapproved) > 0 {
				t.Errorf("Unapproved = %q, want %q", tr.Unapproved, tt.unapproved)
			}
			if (tr.Warning() == "") != (len(tt.unapproved) == 0) {
				t.Errorf("Warning() = %q", tr.Warning())
			}
			applied := llmSection(t, v.Settings())
			ext := map[string]any{}
			var sync SyncConfig
			if err := v.Settings().Decode("embeddings", &ext); err != nil {
				t.Fatal(err)
			}
			if err := v.Settings().Decode("sync", &sync); err != nil {
				t.Fatal(err)
			}
			for _, k := range tt.unapproved {
				section, key, _ := strings.Cut(k, ".")
				switch section {
				case "llm":
					for _, g := range []string{"provider", "command", "base_url", "api_key_env", "model", "<<"} {
						if _, ok := applied[g]; ok {
							t.Errorf("llm.%s is applied though %s is not approved: %v", g, key, applied)
						}
					}
				case "embeddings":
					if len(ext) != 0 {
						t.Errorf("embeddings %v are applied", ext)
					}
				case "sync":
					if sync.Auto || v.Config().Sync.Auto {
						t.Error("sync.auto is applied")
					}
				}
			}
			if len(tt.unapproved) == 0 && tt.approved != "" && applied["provider"] == nil {
				t.Errorf("the approved provider is not applied: %v", applied)
			}
		})
	}
}

func TestTrustRecord(t *testing.T) {
	v := testVault(t)
	// init approves what it writes: nothing that runs.
	tr := v.Trust()
	if tr.ApprovedAt == nil || len(tr.Approved) != 0 || len(tr.Unapproved) != 0 {
		t.Fatalf("after init: %+v", tr)
	}
	writeConfig(t, v, "llm:\n  provider: command\n  command: [sh, -c, \"id > owned\"]\n")
	before, err := v.Approve()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(before.Changed, []string{"llm.provider", "llm.command"}) || len(v.Trust().Unapproved) != 0 {
		t.Errorf("Approve: before %+v, now %+v", before, v.Trust())
	}
	// The record is in the git folder, readable, and out of the work tree.
	data, err := os.ReadFile(filepath.Join(v.GitDir(), "ctx0", "trusted.json"))
	if err != nil || !strings.Contains(string(data), `"llm.command": [`) || !strings.Contains(string(data), `"id > owned"`) {
		t.Errorf("the record: %v\n%s", err, data)
	}
	if out := runGit(t, v, "status", "--porcelain", "--ignored"); strings.Contains(out, "trusted") {
		t.Errorf("git status shows the record:\n%s", out)
	}
	// A record edited so its values no longer match its hash approves
	// nothing, and says so.
	edited := strings.Replace(string(data), `"id > owned"`, `"id > other"`, 1)
	os.WriteFile(filepath.Join(v.GitDir(), "ctx0", "trusted.json"), []byte(edited), 0o600)
	_ = v.readConfig()
	if tr := v.Trust(); len(tr.Unapproved) == 0 || !strings.Contains(tr.Problem, "do not match their hash") {
		t.Errorf("an edited record: %+v", tr)
	}
	if _, err := v.Approve(); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Revoke(); err != nil {
		t.Fatal(err)
	}
	if tr := v.Trust(); !slices.Equal(tr.Unapproved, []string{"llm.provider", "llm.command"}) || tr.Approved != nil {
		t.Errorf("after Revoke: %+v", tr)
	}
}

func TestConfigThatDoesNotDecodeOpensWithDefaults(t *testing.T) {
	v := testVault(t)
	writeConfig(t, v, "sync:\n  auto: sometimes\n")
	w, err := Open(t.Context(), v.Root())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.ConfigError(); err == nil || !strings.Contains(err.Error(), "config.yaml:2: sync: cannot unmarshal") {
		t.Errorf("ConfigError() = %v", err)
	}
	if w.Config().Sync.Auto || w.Config().Author != DefaultConfig().Author {
		t.Errorf("Config() = %+v, want the defaults", w.Config())
	}
}

// FuzzApplyTrust: whatever a pulled config says, with nothing approved no
// section decodes to settings that run or reach out.
func FuzzApplyTrust(f *testing.F) {
	f.Add([]byte("llm:\n  provider: command\n  command: [sh]\nsync: {auto: true}\nembeddings: {url: http://x, model: m}\n"))
	f.Add([]byte("llm:\n  <<: {provider: command}\n"))
	f.Add([]byte("{llm: {provider: openai, base_url: 'http://x/v1'}}"))
	f.Add([]byte("version: 9\nllm:\n  provider: codex\n  future: 1\n"))
	f.Add([]byte{})
	v := &Vault{gitDir: f.TempDir()}
	f.Fuzz(func(t *testing.T, data []byte) {
		raw, err := config.Parse("c.yaml", data)
		if err != nil {
			return
		}
		eff, _ := v.applyTrust(raw)
		for _, c := range []struct {
			section, key string
			inert        func(any) bool
		}{
			{"llm", "provider", func(p any) bool { return p == nil || p == "" || p == "offline" }},
			{"embeddings", "url", func(u any) bool { return u == nil || u == "" }},
			{"sync", "auto", func(a any) bool { return a == nil || a == false }},
		} {
			m := map[string]any{}
			if eff.Decode(c.section, &m) != nil {
				continue // the command that needs it fails
			}
			if !c.inert(m[c.key]) {
				t.Errorf("%s.%s = %v applied without approval, from %q", c.section, c.key, m[c.key], data)
			}
		}
	})
}
