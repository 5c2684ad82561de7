package ingest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"go.yaml.in/yaml/v3"
)

// Config is the ingest section of the vault's .ctx0/config.yaml:
//
//	ingest:
//	  gap_minutes: 60           # silence that ends a conversation
//	  min_user_messages: 1      # fewer, and a finished conversation is skipped
//	  file_after_session: true  # a session's end starts the librarian in the background
type Config struct {
	GapMinutes      int `yaml:"gap_minutes"`
	MinUserMessages int `yaml:"min_user_messages"`
	// FileAfterSession has the hooks start the librarian (then the curator,
	// when due) in the background when a session's end queues its
	// conversations. false leaves them queued, for ctx0 librarian run or
	// ctx0 ingest --watch: for people who choose when a model is paid.
	FileAfterSession bool `yaml:"file_after_session"`
}

// DefaultConfig is the configuration of a vault whose config says nothing
// about ingest: a conversation is over after an hour of silence, and
// conversations are filed as their session ends.
func DefaultConfig() Config {
	return Config{GapMinutes: 60, MinUserMessages: 1, FileAfterSession: true}
}

// Gap is the silence after which a conversation is over.
func (c Config) Gap() time.Duration { return time.Duration(c.GapMinutes) * time.Minute }

// configFile is the vault's settings file, relative to its root.
const configFile = ".ctx0/config.yaml"

// LoadConfig reads the ingest section of the config of the vault at root.
func LoadConfig(root string) (Config, error) {
	cfg := DefaultConfig()
	p := filepath.Join(root, filepath.FromSlash(configFile))
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return cfg, fmt.Errorf("read config: %w", err)
	}
	var doc struct {
		Ingest *Config `yaml:"ingest"`
	}
	doc.Ingest = &cfg
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return cfg, fmt.Errorf("parse config %s: %w", p, err)
	}
	switch {
	case cfg.GapMinutes <= 0:
		return cfg, fmt.Errorf("parse config %s: ingest: gap_minutes %d: want a number of minutes above 0", p, cfg.GapMinutes)
	case cfg.MinUserMessages < 0:
		return cfg, fmt.Errorf("parse config %s: ingest: min_user_messages %d: want 0 or more", p, cfg.MinUserMessages)
	}
	return cfg, nil
}
