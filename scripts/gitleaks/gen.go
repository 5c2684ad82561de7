// Command gen turns gitleaks' default rules (config/gitleaks.toml of the
// gitleaks module) into redact/gitleaks/rules.json, the form the redactor
// embeds: ctx0 takes the rules as data rather than importing gitleaks,
// whose config and detect packages bring viper, archive readers and a
// logger with them. Run it from this folder after changing the version:
//
//	go run . -version v8.30.1
//
// It is a separate module so that the TOML reader it needs stays out of
// ctx0's own dependencies.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/pelletier/go-toml/v2"
)

type allowlist struct {
	Condition   string   `toml:"condition" json:"condition,omitempty"`
	RegexTarget string   `toml:"regexTarget" json:"regexTarget,omitempty"`
	Regexes     []string `toml:"regexes" json:"regexes,omitempty"`
	StopWords   []string `toml:"stopwords" json:"stopwords,omitempty"`
	Paths       []string `toml:"paths" json:"paths,omitempty"`
}

type rule struct {
	ID          string      `toml:"id" json:"id"`
	Regex       string      `toml:"regex" json:"regex,omitempty"`
	SecretGroup int         `toml:"secretGroup" json:"secretGroup,omitempty"`
	Entropy     float64     `toml:"entropy" json:"entropy,omitempty"`
	Keywords    []string    `toml:"keywords" json:"keywords,omitempty"`
	Path        string      `toml:"path" json:"path,omitempty"`
	Allowlists  []allowlist `toml:"allowlists" json:"allowlists,omitempty"`
}

type config struct {
	Version   string    `toml:"-" json:"version"`
	Allowlist allowlist `toml:"allowlist" json:"allowlist"`
	Rules     []rule    `toml:"rules" json:"rules"`
}

func main() {
	version := flag.String("version", "v8.30.1", "gitleaks version")
	out := flag.String("o", "../../redact/gitleaks", "folder to write rules.json and LICENSE into")
	flag.Parse()
	if err := run(*version, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(version, out string) error {
	mod := "github.com/zricethezav/gitleaks/v8@" + version
	dl, err := exec.Command("go", "mod", "download", "-json", mod).Output()
	if err != nil {
		return fmt.Errorf("go mod download %s: %w", mod, err)
	}
	var m struct{ Dir string }
	if err := json.Unmarshal(dl, &m); err != nil {
		return fmt.Errorf("read go mod download: %w", err)
	}
	data, err := os.ReadFile(filepath.Join(m.Dir, "config", "gitleaks.toml"))
	if err != nil {
		return err
	}
	var c config
	if err := toml.Unmarshal(data, &c); err != nil {
		return fmt.Errorf("parse gitleaks.toml: %w", err)
	}
	c.Version = version
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(c); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "rules.json"), b.Bytes(), 0o644); err != nil {
		return err
	}
	lic, err := os.ReadFile(filepath.Join(m.Dir, "LICENSE"))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "LICENSE"), lic, 0o644)
}
