package index

import "github.com/ctx0/ctx0/internal/config"

// ConfigSection is the section of the vault's config file that Config is.
const ConfigSection = "index"

// Config is what the vault's config file says of the index.
type Config struct {
	// AutoWatch false keeps ctx0 from starting a watcher by itself for a
	// big vault (see WithWatcherWanted). The config file comes with the
	// vault from its remote, and what runs in the background is this
	// machine's choice: the file may turn it off, which is safe, but true
	// only leaves the default, so it cannot turn on what the machine
	// turned off.
	AutoWatch bool `yaml:"autowatch"`
}

// ParseConfig decodes the index section of the vault's config file f.
func ParseConfig(f *config.File) (Config, error) {
	cfg := Config{AutoWatch: true}
	err := f.Decode(ConfigSection, &cfg)
	return cfg, err
}
