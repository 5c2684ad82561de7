package curator

import (
	"fmt"
	"strings"

	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vault/entry"
)

// archiveStale archives the scratch and inbox entries untouched for
// Config.StaleAfter. Pinned ones stay.
func (w *work) archiveStale() error {
	for _, d := range w.liveDocs() {
		if d.e.Type() != "scratch" && topFolder(d.name) != "inbox" || d.e.Pinned() {
			continue
		}
		last := d.lastChange()
		if last.IsZero() || w.now.Sub(last) < w.cfg.StaleAfter {
			continue
		}
		days := int(w.now.Sub(last).Hours() / 24)
		nd, err := w.archive(d)
		if err != nil {
			return err
		}
		w.change(Change{Kind: KindArchive, Entry: d.name, Other: nd.name,
			Why: fmt.Sprintf("a %s entry untouched for %d days (last changed %s; archived after %s)", kindOf(d), days, last.UTC().Format("2006-01-02"), durationText(w.cfg.StaleAfter))})
	}
	return nil
}

// archive moves d to archive/<name>, as ctx0 rm does: archived is set and
// the old name stays as an alias, so links to it still resolve.
func (w *work) archive(d *doc) (*doc, error) {
	// A file a person named by hand ("Ideas/My Plan.md") is archived under
	// its normalized name: a run writes only those.
	n, err := vault.NormalizeName(d.name)
	if err != nil {
		return nil, fmt.Errorf("archive %s: %w", d.name, err)
	}
	name, err := w.freeName("archive/" + n)
	if err != nil {
		return nil, fmt.Errorf("archive %s: %w", d.name, err)
	}
	if err := d.e.Set(entry.FieldArchived, w.now); err != nil {
		return nil, fmt.Errorf("archive %s: %w", d.name, err)
	}
	if !containsFold(d.e.Aliases(), d.name) {
		if err := d.e.Set(entry.FieldAliases, append(d.e.Aliases(), d.name)); err != nil {
			return nil, fmt.Errorf("archive %s: %w", d.name, err)
		}
	}
	return w.move(d, name), nil
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

func kindOf(d *doc) string {
	if t := d.e.Type(); t != "" {
		return t
	}
	return "untyped"
}

// durationText prints whole days as "30 days", else the duration.
func durationText(d interface{ Hours() float64 }) string {
	h := d.Hours()
	if h >= 24 && int(h)%24 == 0 {
		if h == 24 {
			return "1 day"
		}
		return fmt.Sprintf("%d days", int(h)/24)
	}
	return fmt.Sprint(d)
}
