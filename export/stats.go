package export

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ctx0/ctx0/vault"
)

// generator marks .ctx0/stats.json as written by ctx0 export: a folder
// holding it is an export that a new export may replace.
const generator = "ctx0 export"

// stats is .ctx0/stats.json: what an export holds and how it was made.
type stats struct {
	Generator  string                 `json:"generator"`
	ExportedAt time.Time              `json:"exported_at"` // when its content last changed
	Commit     string                 `json:"commit"`      // the vault's commit it was made from
	Options    statsOptions           `json:"options"`
	Entries    int                    `json:"entries"`
	Bytes      int                    `json:"bytes"` // of the entries' files
	ByType     map[string]int         `json:"by_type"`
	ByFolder   map[string]folderStats `json:"by_folder"` // by the vault's folders; "." is the root
	Oldest     *dated                 `json:"oldest,omitempty"`
	Newest     *dated                 `json:"newest,omitempty"`
	Links      LinkCounts             `json:"links"`
	Versions   int                    `json:"versions"`
	Redacted   map[string]int         `json:"redacted,omitempty"`
	Skipped    []Skipped              `json:"skipped,omitempty"`
}

// statsOptions records the options that shaped the export.
type statsOptions struct {
	Scope    []string   `json:"scope,omitempty"`
	Exclude  []string   `json:"exclude,omitempty"`
	Since    *time.Time `json:"since,omitempty"`
	Changed  *time.Time `json:"changed_since,omitempty"`
	All      bool       `json:"all,omitempty"`
	Minimal  bool       `json:"minimal,omitempty"`
	Versions bool       `json:"versions,omitempty"`
	Flatten  bool       `json:"flatten,omitempty"`
	Redact   bool       `json:"redact,omitempty"`
}

type folderStats struct {
	Entries int `json:"entries"`
	Bytes   int `json:"bytes"`
}

// dated is an entry at one end of the time the export spans.
type dated struct {
	Name string    `json:"name"`
	Time time.Time `json:"time"`
}

func newStats(s *set, o Options) *stats {
	st := &stats{
		Generator: generator,
		Commit:    s.commit,
		Options: statsOptions{Scope: o.Scope, Exclude: o.Exclude, All: o.All, Minimal: o.Minimal,
			Versions: o.Versions, Flatten: o.Flatten, Redact: o.Redact},
		ByType:   map[string]int{},
		ByFolder: map[string]folderStats{},
		Skipped:  s.skipped,
		Redacted: s.redacted, // complete once the entries and versions are read
	}
	if !o.Since.IsZero() {
		st.Options.Since = &o.Since
	}
	if !o.ChangedSince.IsZero() {
		st.Options.Changed = &o.ChangedSince
	}
	return st
}

// add counts an exported entry whose file has size bytes.
func (st *stats) add(d *doc, size, versions int) {
	st.Entries++
	st.Bytes += size
	st.Versions += versions
	st.ByType[d.e.Type()]++
	f := vault.Folder(d.name)
	if f == "" {
		f = "."
	}
	n := st.ByFolder[f]
	n.Entries++
	n.Bytes += size
	st.ByFolder[f] = n
	// The oldest and newest are by when what an entry tells happened, the
	// date every command shows.
	if at := d.when(); !at.IsZero() {
		if st.Oldest == nil || at.Before(st.Oldest.Time) {
			st.Oldest = &dated{Name: d.name, Time: at}
		}
		if st.Newest == nil || at.After(st.Newest.Time) {
			st.Newest = &dated{Name: d.name, Time: at}
		}
	}
}

func (st *stats) result() Result {
	return Result{Commit: st.Commit, Entries: st.Entries, Versions: st.Versions, Links: st.Links,
		Redacted: st.Redacted, Skipped: st.Skipped}
}

func (st *stats) json() ([]byte, error) {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("export: %s: %w", statsFile, err)
	}
	return append(data, '\n'), nil
}

// previousStats reads the stats of the export in dir; zero if there is
// none or it is not one.
func previousStats(dir string) (stats, error) {
	var st stats
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(statsFile)))
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid) || isNotDir(err) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("export: read %s: %w", filepath.Join(dir, statsFile), err)
	}
	if json.Unmarshal(data, &st) != nil || st.Generator != generator {
		return stats{}, nil
	}
	return st, nil
}
