package vault

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A vault open for long (a watcher taking other processes' writes, an MCP
// server) applies a person's edit of the config file as a new process
// would: a type declared after it opened is accepted, a new limit holds,
// and a file that stops decoding falls back to the defaults with its error.
func TestConfigEditedWhileOpen(t *testing.T) {
	v := testVault(t)
	ctx := t.Context()
	if err := v.CheckType("recipe"); err == nil {
		t.Fatal("recipe is a type before the config declares it")
	}
	cfgPath := filepath.Join(v.Root(), filepath.FromSlash(ConfigFile))
	appendConfig := func(text string) {
		t.Helper()
		f, err := os.OpenFile(cfgPath, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(text); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	appendConfig("types:\n  recipe:\n    folder: recipes\nremember:\n  max_chars: 40\n")

	if err := v.CheckType("recipe"); err != nil {
		t.Fatalf("a type declared after the vault opened: %v", err)
	}
	body := "Flour, eggs, milk."
	if _, _, err := v.Add(ctx, AddOptions{Meta: Meta{Type: "recipe"}, Name: "pancakes", Body: &body}); err != nil {
		t.Fatalf("add with the new type: %v", err)
	}
	if _, err := os.Stat(filepath.Join(v.Root(), "recipes", "pancakes.md")); err != nil {
		t.Fatalf("the new type's folder: %v", err)
	}
	_, err := v.Remember(ctx, RememberOptions{Text: "A memory well over the forty characters the config now allows."})
	if !errors.Is(err, ErrTooLong) {
		t.Fatalf("remember over the new limit: %v, want ErrTooLong", err)
	}

	appendConfig("remember: [\n")
	if err := v.ConfigError(); err == nil || !strings.Contains(err.Error(), "config.yaml") {
		t.Fatalf("ConfigError after the file broke: %v", err)
	}
	if err := v.CheckType("recipe"); err == nil {
		t.Fatal("a config that does not decode still declares recipe")
	}
}
