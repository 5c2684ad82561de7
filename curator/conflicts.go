package curator

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ctx0/ctx0/vault"
	"github.com/ctx0/ctx0/vault/merge"
)

// resolveConflicts settles the conflicts kept aside by merges where one
// side is clearly newer: its entry's updated field, as of that side's
// commit, is at least Config.ClearlyNewer later than the other's. The
// newer version is put in place (if it is not already) and, for the body,
// the conflict block at its end goes. Others stay listed, with the reason
// in the run's notes. It returns the records settled, for the caller to
// mark resolved once the run is merged.
func (w *work) resolveConflicts(ctx context.Context, v *vault.Vault) ([]vault.ConflictRecord, error) {
	records, bad, err := v.Conflicts(ctx)
	if err != nil {
		return nil, err
	}
	for _, b := range bad {
		w.notes = append(w.notes, b.Reason+" (skipped; see ctx0 doctor)")
	}
	var out []vault.ConflictRecord
	for _, r := range records {
		why, ok, err := w.resolveConflict(ctx, v, r)
		if err != nil {
			return nil, err
		}
		if !ok {
			w.notes = append(w.notes, fmt.Sprintf("conflict %s in %s left listed: %s", r.ID, r.Entry, why))
			continue
		}
		out = append(out, r)
		w.change(Change{Kind: KindResolve, Entry: r.Entry, Other: r.ID, Why: why})
	}
	return out, nil
}

func (w *work) resolveConflict(ctx context.Context, v *vault.Vault, r vault.ConflictRecord) (string, bool, error) {
	d := w.docs[r.Entry]
	if d == nil || d.gone {
		return "the entry is gone", false, nil
	}
	ours, err1 := updatedAt(ctx, v, r.Entry, r.OursCommit)
	theirs, err2 := updatedAt(ctx, v, r.Entry, r.TheirsCommit)
	if err1 != nil || err2 != nil || ours.IsZero() || theirs.IsZero() {
		return "one side's time is unknown", false, nil
	}
	var newer merge.Side
	switch {
	case ours.Sub(theirs) >= w.cfg.ClearlyNewer:
		newer = merge.Ours
	case theirs.Sub(ours) >= w.cfg.ClearlyNewer:
		newer = merge.Theirs
	default:
		return fmt.Sprintf("both sides were updated within %s of each other", w.cfg.ClearlyNewer), false, nil
	}
	kept, other := r.Ours, r.Theirs
	if merge.Side(r.Kept) == merge.Theirs {
		kept, other = r.Theirs, r.Ours
	}
	when := map[merge.Side]time.Time{merge.Ours: ours, merge.Theirs: theirs}
	why := fmt.Sprintf("the %s side (updated %s) is newer than the %s side (updated %s)", newer,
		when[newer].UTC().Format(time.RFC3339), otherSide(newer), when[otherSide(newer)].UTC().Format(time.RFC3339))
	keepNewer := merge.Side(r.Kept) == newer
	if r.Field != "" {
		if strings.Contains(r.Field, ".") {
			return "a conflict inside a map field is left to a person", false, nil
		}
		if keepNewer {
			return why + "; it is already in place", true, nil
		}
		if other == "" {
			d.e.Delete(r.Field)
		} else if err := d.e.SetYAML(r.Field, other); err != nil {
			return "the newer value does not read as YAML", false, nil
		}
		d.dirty = true
		return why + "; " + r.Field + " set to it", true, nil
	}
	body := d.e.Body()
	nb, ok := dropConflictBlock(body, other)
	if !ok {
		return "its conflict block is not in the entry as recorded", false, nil
	}
	if !keepNewer {
		if strings.TrimSpace(kept) == "" || strings.Count(nb, strings.TrimSpace(kept)) != 1 {
			return "the version in place is not found once in the entry", false, nil
		}
		nb = strings.Replace(nb, strings.TrimSpace(kept), strings.TrimSpace(other), 1)
	}
	d.e.SetBody(nb)
	d.dirty = true
	if keepNewer {
		return why + "; it is already in place, the other's block removed", true, nil
	}
	return why + "; put in place of the older, the block removed", true, nil
}

func otherSide(s merge.Side) merge.Side {
	if s == merge.Ours {
		return merge.Theirs
	}
	return merge.Ours
}

// updatedAt is the updated (else created) field of entry name as of rev,
// a commit hash: a record is anyone's writing, so a rev it names is looked
// up as a hash only, never as a ref or expression.
func updatedAt(ctx context.Context, v *vault.Vault, name, rev string) (time.Time, error) {
	if !isCommitHash(rev) {
		return time.Time{}, fmt.Errorf("commit %q is not a commit hash", rev)
	}
	doc, err := v.GetAt(ctx, name, rev)
	if err != nil {
		return time.Time{}, err
	}
	if u := doc.Entry.Updated(); !u.IsZero() {
		return u, nil
	}
	return doc.Entry.Created(), nil
}

// dropConflictBlock removes from body the conflict block (vault/merge's
// "> [!conflict]" callout) that holds text, with the blank line before it.
func dropConflictBlock(body, text string) (string, bool) {
	want := strings.TrimSpace(text)
	lines := strings.Split(body, "\n")
	for _, b := range merge.Blocks(body) {
		if strings.TrimSpace(b.Text) != want {
			continue
		}
		start := b.Start
		if start > 0 && strings.TrimSpace(lines[start-1]) == "" {
			start--
		}
		rest := append(append([]string{}, lines[:start]...), lines[b.End:]...)
		out := strings.Join(rest, "\n")
		if strings.HasSuffix(body, "\n") && !strings.HasSuffix(out, "\n") {
			out += "\n"
		}
		return out, true
	}
	return body, false
}

// isCommitHash tells whether s is a full SHA-1 or SHA-256 hash in hex.
func isCommitHash(s string) bool {
	return (len(s) == 40 || len(s) == 64) && strings.Trim(s, "0123456789abcdef") == ""
}
