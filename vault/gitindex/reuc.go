package gitindex

import (
	"bytes"
	"errors"
	"strconv"
)

// resolveUndo is the "REUC" extension: for paths whose conflict was
// resolved, the modes and hashes stages 1-3 had, so that
// `git checkout -m PATH` can re-create the conflict. Each record is
//
//	path NUL mode1 NUL mode2 NUL mode3 NUL hash for each non-zero mode
//
// with modes in ASCII octal, records sorted by path.
type resolveUndo []reucRecord

type reucRecord struct {
	name []byte
	raw  []byte // as read; nil once changed
	mode [3]uint32
	hash [3][hashLen]byte
}

// reucEntry is one unmerged index entry being dropped.
type reucEntry struct {
	name  []byte
	stage int // 1..3
	mode  uint32
	hash  [hashLen]byte
}

var errBadREUC = errors.New("corrupt resolve-undo extension")

func parseResolveUndo(b []byte) (resolveUndo, error) {
	var ru resolveUndo
	for len(b) > 0 {
		start := b
		nul := bytes.IndexByte(b, 0)
		if nul < 0 {
			return nil, errBadREUC
		}
		r := reucRecord{name: b[:nul]}
		b = b[nul+1:]
		for i := range r.mode {
			nul = bytes.IndexByte(b, 0)
			if nul < 0 {
				return nil, errBadREUC
			}
			m, err := strconv.ParseUint(string(b[:nul]), 8, 32)
			if err != nil {
				return nil, errBadREUC
			}
			r.mode[i] = uint32(m)
			b = b[nul+1:]
		}
		for i := range r.mode {
			if r.mode[i] == 0 {
				continue
			}
			if len(b) < hashLen {
				return nil, errBadREUC
			}
			copy(r.hash[i][:], b)
			b = b[hashLen:]
		}
		r.raw = start[:len(start)-len(b)]
		ru = append(ru, r)
	}
	return ru, nil
}

// record notes dropped unmerged entries as git's record_resolve_undo does:
// per path, each stage seen overwrites that stage of any existing record.
func (ru resolveUndo) record(lost []reucEntry) resolveUndo {
	for _, e := range lost {
		i := 0
		for i < len(ru) && bytes.Compare(ru[i].name, e.name) < 0 {
			i++
		}
		if i == len(ru) || !bytes.Equal(ru[i].name, e.name) {
			ru = append(ru, reucRecord{})
			copy(ru[i+1:], ru[i:])
			ru[i] = reucRecord{name: e.name}
		}
		ru[i].raw = nil
		ru[i].mode[e.stage-1] = e.mode
		ru[i].hash[e.stage-1] = e.hash
	}
	return ru
}

func (ru resolveUndo) appendTo(b []byte) []byte {
	for _, r := range ru {
		if r.raw != nil {
			b = append(b, r.raw...)
			continue
		}
		b = append(b, r.name...)
		b = append(b, 0)
		for _, m := range r.mode {
			b = strconv.AppendUint(b, uint64(m), 8)
			b = append(b, 0)
		}
		for i, m := range r.mode {
			if m != 0 {
				b = append(b, r.hash[i][:]...)
			}
		}
	}
	return b
}
