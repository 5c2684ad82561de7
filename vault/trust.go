package vault

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/ctx0/ctx0/internal/atomicfile"
	"github.com/ctx0/ctx0/internal/config"
)

// Anyone who can push to the vault's remote writes .ctx0/config.yaml for
// every clone. So the settings in it that run a program, choose a network
// address, name an environment variable to read or turn on background
// work are applied only when this machine approved exactly those values
// (ctx0 trust), as direnv asks `direnv allow` for a changed .envrc. The
// approval is kept in the git folder, which no pull writes. Settings that
// are not approved are read as if the file did not set them: the offline
// provider, no embeddings, no automatic sync.
//
// This is the one place that decides: the vault applies it when it reads
// its config, so every package that decodes a section of Settings (the
// model, the embeddings endpoint, the daemon's and the hooks' sync) sees
// only what this machine approved.

// guardedGroup is settings that act together: one not approved withholds
// all of them, so that no mix of approved and pulled values (an approved
// key variable sent to a pulled address) is ever used.
type guardedGroup struct {
	section string
	keys    []string // the keys approval covers
	// whole withholds the whole section, for settings that mean nothing
	// (or do not decode) without the guarded ones.
	whole bool
	// inert reports whether the file's values of keys (absent: not in
	// the map) run and reach nothing, so need no approval.
	inert func(vals map[string]any) bool
	// without is what ctx0 does when the group is withheld.
	without string
}

// guarded are the settings of .ctx0/config.yaml that need this machine's
// approval. Environment variables a person sets on their own machine are
// theirs and need none.
var guarded = []guardedGroup{
	{
		// The model: a provider other than offline runs a program
		// (command, claude-code, codex) or sends the vault's text, with
		// the key api_key_env names, to an address. model goes on the
		// claude or codex command line, so it is approved with them.
		section: "llm",
		keys:    []string{"provider", "command", "base_url", "api_key_env", "model"},
		inert: func(vals map[string]any) bool {
			p, ok := vals["provider"]
			return !ok || p == nil || p == "" || p == "offline"
		},
		without: "using the offline provider",
	},
	{
		// The embeddings endpoint: entries' text goes to url, with the key
		// api_key_env names.
		section: "embeddings",
		keys:    []string{"url", "api_key_env"},
		whole:   true,
		inert: func(vals map[string]any) bool {
			u, ok := vals["url"]
			return !ok || u == nil || u == ""
		},
		without: "searching without embeddings",
	},
	{
		// Automatic sync: pulls and pushes in the background, from the
		// hooks and the daemon, with nobody typing anything.
		section: "sync",
		keys:    []string{"auto"},
		inert: func(vals map[string]any) bool {
			a, ok := vals["auto"]
			return !ok || a == nil || a == false
		},
		without: "not syncing automatically",
	},
}

// GuardedKeys are the settings of .ctx0/config.yaml that are applied only
// once this machine approved them (ctx0 trust), as section.key.
func GuardedKeys() []string {
	var keys []string
	for _, g := range guarded {
		for _, k := range g.keys {
			keys = append(keys, g.section+"."+k)
		}
	}
	return keys
}

// Setting is one guarded setting and its value, as JSON.
type Setting struct {
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`
}

// Trust is what this machine decided about the guarded settings of the
// vault's config file.
type Trust struct {
	// File is the config file, relative to the vault's root.
	File string `json:"file"`
	// Record is where the approval is kept, in the git folder.
	Record string `json:"record"`
	// Settings are the guarded settings the file sets now, by key.
	Settings []Setting `json:"settings"`
	// Approved are the settings last approved on this machine; nil when
	// none were (or the record is damaged: see Problem).
	Approved []Setting `json:"approved"`
	// ApprovedAt is when they were approved.
	ApprovedAt *time.Time `json:"approved_at,omitempty"`
	// Unapproved are the keys the file sets that are not applied, because
	// their values are not the approved ones.
	Unapproved []string `json:"unapproved"`
	// Changed are the keys whose value differs from the approved one
	// (set, removed or changed), inert or not.
	Changed []string `json:"changed"`
	// Problem says why the record could not be read, if it could not.
	Problem string `json:"problem,omitempty"`
	// without is what ctx0 does instead, one phrase per withheld group.
	without []string
}

// Warning is the one line that says what is not applied and how to
// approve it, or "" when everything is.
func (t Trust) Warning() string {
	if len(t.Unapproved) == 0 {
		return ""
	}
	return fmt.Sprintf(`%s sets %s, which this machine has not approved; %s. Review the file and run "ctx0 trust".`,
		t.File, joinAnd(t.Unapproved), joinAnd(t.without))
}

// joinAnd is "a", "a and b", "a, b and c".
func joinAnd(s []string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// trustRecord is the file that keeps an approval: the settings approved,
// and their hash, by which the record is checked.
type trustRecord struct {
	Config     string                     `json:"config"`
	ApprovedAt time.Time                  `json:"approved_at"`
	SHA256     string                     `json:"sha256"`
	Settings   map[string]json.RawMessage `json:"settings"`
}

// trustFile is where the approval is kept, relative to the git folder.
const trustFile = "ctx0/trusted.json"

// trustPath is the approval record of v.
func (v *Vault) trustPath() string {
	return filepath.Join(v.gitDir, filepath.FromSlash(trustFile))
}

// settingsHash is the hash of a canonical encoding of settings: compact
// JSON with sorted keys.
func settingsHash(settings map[string]json.RawMessage) string {
	sum := sha256.Sum256(compactJSON(settings))
	return hex.EncodeToString(sum[:])
}

// compactJSON is v as compact JSON, with <, > and & as they are: the
// values are shown to people.
func compactJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// guardedValues are the guarded settings f sets, by section.key, as
// compact JSON; a section that is no mapping makes its keys' values
// unreadable, and so never approved. A group whose values are inert (the
// offline provider, sync.auto: false, as ctx0 init writes them) sets
// nothing that runs or reaches out: it is left out, so it asks for no
// approval, and turning it on later is a change that does.
func guardedValues(f *config.File) (map[string]json.RawMessage, map[string]map[string]any) {
	vals := map[string]json.RawMessage{}
	raw := map[string]map[string]any{}
	for _, g := range guarded {
		raw[g.section] = map[string]any{}
		for _, k := range g.keys {
			v, ok, err := f.Value(g.section, k)
			if err != nil {
				v, ok = "unreadable: "+err.Error(), true
			}
			if ok {
				raw[g.section][k] = v
			}
		}
		if g.inert(raw[g.section]) {
			continue
		}
		for k, v := range raw[g.section] {
			vals[g.section+"."+k] = canonical(v)
		}
	}
	return vals, raw
}

// canonical is v as compact JSON, or, for what JSON cannot hold (a
// mapping with keys that are not strings), its YAML as a JSON string.
func canonical(v any) json.RawMessage {
	if b := compactJSON(v); b != nil {
		return b
	}
	y, _ := yaml.Marshal(v)
	return compactJSON(string(y))
}

// readTrust reads the approval record; nil when there is none.
func (v *Vault) readTrust() (*trustRecord, error) {
	data, err := os.ReadFile(v.trustPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", v.trustPath(), err)
	}
	var r trustRecord
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("read %s: %w", v.trustPath(), err)
	}
	if r.Settings == nil {
		r.Settings = map[string]json.RawMessage{}
	}
	for k, val := range r.Settings {
		var x any
		if err := json.Unmarshal(val, &x); err != nil {
			return nil, fmt.Errorf("read %s: %s: %w", v.trustPath(), k, err)
		}
		r.Settings[k] = compactJSON(x)
	}
	if r.SHA256 != settingsHash(r.Settings) {
		return nil, fmt.Errorf("%s: the settings do not match their hash; run ctx0 trust to approve them again", v.trustPath())
	}
	return &r, nil
}

// applyTrust decides which guarded settings of f are applied, and returns
// f without the others and the decision.
func (v *Vault) applyTrust(f *config.File) (*config.File, Trust) {
	t := Trust{File: ConfigFile, Record: v.trustPath(), Settings: []Setting{}, Unapproved: []string{}, Changed: []string{}}
	vals, raw := guardedValues(f)
	rec, err := v.readTrust()
	if err != nil {
		t.Problem = err.Error()
	}
	approved := map[string]json.RawMessage{}
	if rec != nil {
		approved = rec.Settings
		t.Approved = sortedSettings(rec.Settings)
		at := rec.ApprovedAt
		t.ApprovedAt = &at
	}
	t.Settings = sortedSettings(vals)
	for _, k := range GuardedKeys() {
		if !bytes.Equal(vals[k], approved[k]) {
			t.Changed = append(t.Changed, k)
		}
	}
	for _, g := range guarded {
		if g.inert(raw[g.section]) {
			continue
		}
		same := true
		var set []string
		for _, k := range g.keys {
			key := g.section + "." + k
			if _, ok := vals[key]; ok {
				set = append(set, key)
			}
			if !bytes.Equal(vals[key], approved[key]) {
				same = false
			}
		}
		if same {
			continue
		}
		t.Unapproved = append(t.Unapproved, set...)
		t.without = append(t.without, g.without)
		if g.whole {
			f = f.Without(g.section)
		} else {
			f = f.Without(g.section, g.keys...)
		}
	}
	return f, t
}

// sortedSettings lists settings by key.
func sortedSettings(m map[string]json.RawMessage) []Setting {
	out := make([]Setting, 0, len(m))
	for k, val := range m {
		out = append(out, Setting{Key: k, Value: val})
	}
	slices.SortFunc(out, func(a, b Setting) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// Trust is what this machine decided about the guarded settings of the
// config file, as the vault read it.
func (v *Vault) Trust() Trust { return v.config().trust }

// Approve records that this machine approves the guarded settings the
// config file sets now (read again, so what is approved is what the file
// holds), and applies them. It returns the decision as it was just before
// approving, so a caller can show what changed, with Unapproved empty.
func (v *Vault) Approve() (Trust, error) {
	settings, err := ReadConfig(v.root)
	if err != nil {
		return Trust{}, fmt.Errorf("approve the settings: %w", err)
	}
	_, before := v.applyTrust(settings)
	vals, _ := guardedValues(settings)
	rec := trustRecord{Config: ConfigFile, ApprovedAt: v.now().UTC().Truncate(time.Second), SHA256: settingsHash(vals), Settings: vals}
	var data bytes.Buffer
	enc := json.NewEncoder(&data)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rec); err != nil {
		return Trust{}, fmt.Errorf("approve the settings: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(v.trustPath()), 0o700); err != nil {
		return Trust{}, fmt.Errorf("approve the settings: %w", err)
	}
	if err := atomicfile.Replace(v.trustPath(), data.Bytes(), 0o600); err != nil {
		return Trust{}, fmt.Errorf("approve the settings: write %s: %w", v.trustPath(), err)
	}
	_ = v.readConfig()
	return before, nil
}

// Revoke removes this machine's approval: the guarded settings the file
// sets are no longer applied.
func (v *Vault) Revoke() (Trust, error) {
	if err := os.Remove(v.trustPath()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return Trust{}, fmt.Errorf("revoke the approval: %w", err)
	}
	_ = v.readConfig()
	return v.config().trust, nil
}
