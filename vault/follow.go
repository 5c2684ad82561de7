package vault

import (
	"context"
	"slices"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// maxFollowed bounds the commits one move of the branch reports: a pull
// of many commits is told by its newest ones.
const maxFollowed = 20

// FollowCommits calls report with the commits the branch gains, oldest
// first, whoever makes them (a ctx0 command, an agent run, a person's git
// commit), looking every poll, until ctx ends. The commits there when it
// starts are not reported. It is how a long-running process tells a person
// that something was written while it ran, when nothing else it does
// notices (a ctx0 write keeps the index current itself).
func (v *Vault) FollowCommits(ctx context.Context, poll time.Duration, report func([]LogEntry)) error {
	seen := ""
	if h, err := v.head(); err == nil {
		seen = h.hash.String()
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		h, err := v.head()
		if err != nil || h.hash.String() == seen || h.hash.IsZero() {
			continue
		}
		v.reloadPacks() // the commit may be in a pack another process wrote
		var gained []LogEntry
		err = v.walkCommits(ctx, func(c *object.Commit) error {
			if c.Hash.String() == seen || len(gained) == maxFollowed {
				return storer.ErrStop
			}
			gained = append(gained, logEntry(c))
			return nil
		})
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			continue // read again at the next look
		}
		seen = h.hash.String()
		slices.Reverse(gained)
		if len(gained) > 0 {
			report(gained)
		}
	}
}
