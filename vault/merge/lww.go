package merge

import "github.com/ctx0/ctx0/vault/entry"

// lastWriteWins returns, whole, the version whose updated field is later,
// the winner's if neither is. The other version is returned as a conflict,
// so that it can still be found.
func (m *merger) lastWriteWins(base, ours, theirs []byte, o, t *entry.Entry) []byte {
	kept := m.later(o, t)
	m.conflicts = append(m.conflicts, Conflict{
		Hunk: "whole entry (last-write-wins: the later updated is kept)",
		Base: string(base), Ours: string(ours), Theirs: string(theirs), Kept: kept,
	})
	if kept == Ours {
		return ours
	}
	return theirs
}

// later is the side whose version has the later updated field, the
// winner if neither has.
func (m *merger) later(o, t *entry.Entry) Side {
	switch ou, tu := o.Updated(), t.Updated(); {
	case tu.After(ou):
		return Theirs
	case ou.After(tu):
		return Ours
	}
	return m.opt.Winner
}
