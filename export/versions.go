package export

import (
	"bytes"
	"context"
	"fmt"

	"github.com/ctx0/ctx0/vault"
)

// version is an earlier version of an exported entry.
type version struct {
	vault.LogEntry
	raw  []byte
	file string // its path in the export (see place)
}

// versionsDir holds the earlier versions of entries, one folder per entry.
const versionsDir = ".versions"

// loadVersions reads the earlier versions of every exported entry from git
// history, newest first: the commit that gave the entry each content it had
// (a commit that only renamed it adds none), except what it holds now.
func (s *set) loadVersions(ctx context.Context, redact bool) error {
	names := make([]string, len(s.docs))
	for i, d := range s.docs {
		names[i] = d.name
	}
	all, err := s.v.Versions(ctx, names)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	for _, d := range s.docs {
		for _, ver := range all[d.name] {
			if n := len(d.versions); n > 0 && bytes.Equal(d.versions[n-1].raw, ver.Data) {
				d.versions[n-1] = version{LogEntry: ver.LogEntry, raw: ver.Data} // the older commit gave it
				continue
			}
			d.versions = append(d.versions, version{LogEntry: ver.LogEntry, raw: ver.Data})
		}
		if len(d.versions) > 0 && bytes.Equal(d.versions[0].raw, d.orig) {
			d.versions = d.versions[1:] // what the entry holds now
		}
		for i := range d.versions {
			d.versions[i].raw = s.redact(d.versions[i].raw, redact)
		}
	}
	return nil
}
