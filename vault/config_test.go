package vault

import (
	"strings"
	"testing"

	"github.com/ctx0/ctx0/internal/config"
)

// The remember limits: defaults a team never meets, the values a config
// sets, and a clear error for a value that is no limit.
func TestConfigRememberLimits(t *testing.T) {
	for _, tc := range []struct {
		yaml             string
		client, perVault int
		err              string
	}{
		{"", 60, 600, ""},
		{"remember:\n  max_chars: 100\n", 60, 600, ""},
		{"remember:\n  per_client_per_minute: 5\n  per_vault_per_minute: 50\n", 5, 50, ""},
		{"remember:\n  per_client_per_minute: -1\n", 0, 0, "remember: per_client_per_minute -1: want a positive number"},
		{"remember:\n  per_vault_per_minute: many\n", 0, 0, "config.yaml"},
	} {
		f, err := config.Parse("/v/.ctx0/config.yaml", []byte(tc.yaml))
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := ParseConfig(f)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want one saying %q", tc.yaml, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.yaml, err)
			continue
		}
		if r := cfg.Remember; r.PerClientPerMinute != tc.client || r.PerVaultPerMinute != tc.perVault {
			t.Errorf("%q: limits %d per client, %d per vault; want %d, %d", tc.yaml, r.PerClientPerMinute, r.PerVaultPerMinute, tc.client, tc.perVault)
		}
	}
}
