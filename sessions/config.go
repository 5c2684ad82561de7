package sessions

import (
	"fmt"
	"time"

	"github.com/ctx0/ctx0/internal/config"
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

// ConfigSection is the section of the vault's config file that Config is.
const ConfigSection = "ingest"

// ParseConfig decodes the ingest section of the vault's config file f.
func ParseConfig(f *config.File) (Config, error) {
	cfg := DefaultConfig()
	p := f.Path()
	if err := f.Decode(ConfigSection, &cfg); err != nil {
		return cfg, err
	}
	switch {
	case cfg.GapMinutes <= 0:
		return cfg, fmt.Errorf("parse config %s: ingest: gap_minutes %d: want a number of minutes above 0", p, cfg.GapMinutes)
	case cfg.MinUserMessages < 0:
		return cfg, fmt.Errorf("parse config %s: ingest: min_user_messages %d: want 0 or more", p, cfg.MinUserMessages)
	}
	return cfg, nil
}
