package gitindex

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
)

// ErrSplitIndex is returned for a split index (core.splitIndex, the "link"
// extension): its entries live partly in a shared index file, which this
// package does not rewrite.
var ErrSplitIndex = errors.New("split index is not supported (run `git update-index --no-split-index`)")

// ErrSparseIndex is returned for a sparse index (index.sparse, the "sdir"
// extension), whose entries may stand for whole directories.
var ErrSparseIndex = errors.New("sparse index is not supported (run `git sparse-checkout set --no-sparse-index`)")

// op is one validated update, ready to be spliced in.
type op struct {
	path   []byte
	remove bool
	hdr    [entryFixed]byte // on-disk entry header (stat data, mode, hash, flags); unused when remove
}

// span is a half-open range of entry indexes.
type span struct{ lo, hi int }

// splice writes ix with ops applied to dst, with its checksum, and reports
// whether ops change anything; if they do not (they only remove paths the
// index does not have), it writes nothing. Untouched entries go from ix's
// bytes to dst as they are, not through a copy of the whole index: on a
// small machine, the first touch of a fresh megabyte costs more than the
// splice. It does not check ix's checksum (see checksumOK). ops must be
// sorted by path, without duplicates, and no added path may be a directory
// of another added path (prepareOps ensures all three).
func splice(ix *indexFile, ops []op, dst io.Writer) (bool, error) {
	n := len(ix.entries)

	// Entries to drop: every stage of each updated path and, like `git add`
	// (ADD_CACHE_OK_TO_REPLACE), whatever an added path displaces: files
	// where it needs directories, and everything under it if it was a
	// directory.
	var drop []span
	var inserts []int // index into ops of each added path, in path order
	var insertAt []int
	var touched [][]byte // paths whose cache-tree entries become stale
	for i := range ops {
		o := &ops[i]
		s := ix.nameSpan(o.path)
		drop = appendSpan(drop, s)
		if o.remove {
			if s.lo < s.hi {
				touched = append(touched, o.path)
			}
			continue
		}
		touched = append(touched, o.path)
		for j := range o.path {
			if o.path[j] == '/' {
				drop = appendSpan(drop, ix.nameSpan(o.path[:j]))
			}
		}
		dir := append(append(make([]byte, 0, len(o.path)+1), o.path...), '/')
		lo := ix.lowerBound(dir)
		dir[len(dir)-1] = '/' + 1
		drop = appendSpan(drop, span{lo, ix.lowerBound(dir)})
		inserts = append(inserts, i)
		insertAt = append(insertAt, ix.lowerBound(o.path))
	}
	slices.SortFunc(drop, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	merged := drop[:0]
	for _, s := range drop {
		if k := len(merged) - 1; k >= 0 && s.lo <= merged[k].hi {
			merged[k].hi = max(merged[k].hi, s.hi)
			continue
		}
		merged = append(merged, s)
	}
	drop = merged
	dropped := 0
	for _, s := range drop {
		dropped += s.hi - s.lo
	}
	if dropped == 0 && len(inserts) == 0 {
		return false, nil
	}
	count := n - dropped + len(inserts)
	if uint64(count) > 0xffffffff {
		return false, errors.New("too many index entries")
	}
	for _, x := range ix.exts {
		switch string(x.sig[:]) {
		case "link":
			return false, ErrSplitIndex
		case "sdir":
			return false, ErrSparseIndex
		}
		if x.sig[0] < 'A' || x.sig[0] > 'Z' {
			return false, fmt.Errorf("index extension %q is required and not supported", x.sig[:])
		}
	}

	sum := sha1.New()
	out := bufio.NewWriterSize(io.MultiWriter(dst, sum), 64<<10)
	var head []byte
	head = append(head, "DIRC"...)
	head = binary.BigEndian.AppendUint32(head, ix.version)
	head = binary.BigEndian.AppendUint32(head, uint32(count))
	out.Write(head)

	w := entryWriter{ix: ix, out: out, lastOrig: -1}
	i, di, ki := 0, 0, 0
loop:
	for {
		next := n
		if di < len(drop) {
			next = min(next, drop[di].lo)
		}
		if ki < len(inserts) {
			next = min(next, insertAt[ki])
		}
		if i < next {
			w.copyEntries(i, next)
			i = next
		}
		switch {
		case ki < len(inserts) && insertAt[ki] <= i:
			w.newEntry(&ops[inserts[ki]])
			ki++
		case di < len(drop) && drop[di].lo <= i:
			i = max(i, drop[di].hi)
			di++
		case i >= n:
			break loop
		}
	}

	// Resolve-undo records for the unmerged entries we drop, as git records
	// them when `git add` or `git rm --cached` resolves a conflict.
	var lost []reucEntry
	for _, s := range drop {
		for j := s.lo; j < s.hi; j++ {
			e := &ix.entries[j]
			if e.stage == 0 {
				continue
			}
			r := reucEntry{name: ix.name(j), stage: int(e.stage)}
			r.mode = binary.BigEndian.Uint32(ix.data[e.start+modeOffset:])
			copy(r.hash[:], ix.data[e.start+hashOffset:])
			lost = append(lost, r)
		}
	}
	var exts []byte
	wroteREUC := false
	for _, x := range ix.exts {
		switch string(x.sig[:]) {
		case "TREE":
			// Cache tree: invalidate the changed paths, as git does.
			t, err := parseCacheTree(x.payload(ix.data))
			if err != nil {
				continue // optional: git drops a corrupt cache tree too
			}
			for _, p := range touched {
				t.invalidate(p)
			}
			exts = appendExtension(exts, "TREE", func(b []byte) []byte { return t.appendTo(b) })
		case "REUC":
			if len(lost) == 0 {
				exts = append(exts, ix.data[x.start:x.end]...)
				wroteREUC = true
				continue
			}
			ru, err := parseResolveUndo(x.payload(ix.data))
			if err != nil {
				ru = nil // start afresh, as git does with a corrupt one
			}
			ru = ru.record(lost)
			exts = appendExtension(exts, "REUC", ru.appendTo)
			wroteREUC = true
		default:
			// Optional extensions are dropped: UNTR (untracked cache: file
			// presence changed), FSMN (fsmonitor: a bitmap by entry
			// position), EOIE and IEOT (byte offsets of entries), and any
			// unknown one, since it may describe entries we moved.
		}
	}
	if len(lost) > 0 && !wroteREUC {
		var ru resolveUndo
		ru = ru.record(lost)
		exts = appendExtension(exts, "REUC", ru.appendTo)
	}
	out.Write(exts)
	if err := out.Flush(); err != nil {
		return false, err
	}
	trailer := make([]byte, trailerLen)
	if !ix.zeroTrailer {
		trailer = sum.Sum(trailer[:0])
	}
	_, err := dst.Write(trailer)
	return true, err
}

// checkAndSplice is splice after checking ix's checksum, which it does on
// another goroutine while splicing: SHA-1 over the whole file is most of the
// work, and splice needs a second one for the new checksum.
func checkAndSplice(ix *indexFile, ops []op, dst io.Writer) (bool, error) {
	checked := make(chan error, 1)
	go func() {
		checked <- readMapped(func() error {
			if !ix.checksumOK() {
				return corruptf("checksum mismatch")
			}
			return nil
		})
	}()
	changed, err := splice(ix, ops, dst)
	if cerr := <-checked; cerr != nil {
		return false, cerr
	}
	return changed, err
}

// appendExtension appends an extension header and the payload fill writes.
func appendExtension(out []byte, sig string, fill func([]byte) []byte) []byte {
	out = append(out, sig...)
	at := len(out)
	out = append(out, 0, 0, 0, 0)
	out = fill(out)
	binary.BigEndian.PutUint32(out[at:], uint32(len(out)-at-4))
	return out
}

// appendSpan appends s unless it is empty.
func appendSpan(spans []span, s span) []span {
	if s.lo >= s.hi {
		return spans
	}
	return append(spans, s)
}

// lowerBound returns the index of the first entry whose name is >= key.
func (ix *indexFile) lowerBound(key []byte) int {
	return sort.Search(len(ix.entries), func(i int) bool { return bytes.Compare(ix.name(i), key) >= 0 })
}

// nameSpan returns the entries named exactly name (all its stages).
func (ix *indexFile) nameSpan(name []byte) span {
	lo := ix.lowerBound(name)
	hi := lo
	for hi < len(ix.entries) && bytes.Equal(ix.name(hi), name) {
		hi++
	}
	return span{lo, hi}
}

// entryWriter writes entries to out, copying runs of untouched entries
// verbatim. In version 4 an entry's name is stored relative to the previous
// entry's, so the first entry of a run that follows a change is re-encoded.
type entryWriter struct {
	ix       *indexFile
	out      io.Writer // buffered: its errors show when it is flushed
	buf      []byte    // one entry being encoded
	lastOrig int       // index of the last original entry written, or -2 after a new one
	lastName []byte    // name of the last entry written (version 4)
}

func (w *entryWriter) copyEntries(from, to int) {
	ix := w.ix
	start := ix.entries[from].start
	if ix.version == 4 && from != w.lastOrig+1 {
		e := &ix.entries[from]
		w.buf = append(w.buf[:0], ix.data[e.start:e.start+uint32(e.hdrLen)]...)
		w.buf = w.appendNameV4(w.buf, ix.name(from))
		w.out.Write(w.buf)
		start = e.end
	}
	w.out.Write(ix.data[start:ix.entries[to-1].end])
	w.lastOrig = to - 1
	if ix.version == 4 {
		w.lastName = ix.name(to - 1)
	}
}

func (w *entryWriter) newEntry(o *op) {
	w.buf = append(w.buf[:0], o.hdr[:]...)
	if w.ix.version == 4 {
		w.buf = w.appendNameV4(w.buf, o.path)
		w.lastName = o.path
	} else {
		w.buf = append(w.buf, o.path...)
		pad := (entryFixed+len(o.path)+8)&^7 - entryFixed - len(o.path)
		w.buf = append(w.buf, make([]byte, pad)...)
	}
	w.out.Write(w.buf)
	w.lastOrig = -2
}

func (w *entryWriter) appendNameV4(b, name []byte) []byte {
	common := 0
	for common < len(name) && common < len(w.lastName) && name[common] == w.lastName[common] {
		common++
	}
	b = appendVarint(b, uint64(len(w.lastName)-common))
	b = append(b, name[common:]...)
	return append(b, 0)
}

// encodeUnchanged re-serializes ix as it is (with a recomputed checksum, or
// the zero one of index.skipHash); used to test the parser.
func encodeUnchanged(ix *indexFile) []byte {
	var out bytes.Buffer
	out.Write(ix.data[:headerLen])
	if len(ix.entries) > 0 {
		w := entryWriter{ix: ix, out: &out, lastOrig: -1}
		w.copyEntries(0, len(ix.entries))
	}
	for _, x := range ix.exts {
		out.Write(ix.data[x.start:x.end])
	}
	if ix.zeroTrailer {
		out.Write(make([]byte, trailerLen))
		return out.Bytes()
	}
	sum := sha1.Sum(out.Bytes())
	out.Write(sum[:])
	return out.Bytes()
}
