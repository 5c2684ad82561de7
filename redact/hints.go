package redact

import (
	"strings"
	"sync"
	"sync/atomic"
)

// hintSet finds which of many hints occur in a text. The redactor has a
// few hundred rules, each runnable only on a text holding one of its hints
// (its keywords). A long text (a transcript, an export) is read once
// whatever their number, by an Aho-Corasick automaton over ASCII-case-folded
// bytes; looking for each hint in turn would read it hundreds of times. A
// short text (a remembered fact, a title) is searched for each hint in
// turn instead: building the automaton takes longer than a thousand such
// searches, and a process such as `ctx0 remember` redacts one short text.
type hintSet struct {
	hints []string // ASCII-lowered; a hint's index is its id
	// built is set once the automaton exists: every text then uses it.
	built atomic.Bool
	auto  func() *automaton
}

// scanMax is the longest text searched hint by hint while the automaton
// is not built: about 0.4 ms for the redactor's hints, a fifth of the
// automaton's build.
const scanMax = 1024

// newHintSet returns the finder of hints, which are matched ignoring
// ASCII case. A hint's index in hints is its id.
func newHintSet(hints []string) *hintSet {
	h := &hintSet{hints: make([]string, len(hints))}
	for i, s := range hints {
		h.hints[i] = asciiLower(s)
	}
	h.auto = sync.OnceValue(func() *automaton {
		a := newAutomaton(hints)
		h.built.Store(true)
		return a
	})
	return h
}

// find sets found[id] for every hint that occurs in s, ignoring ASCII case.
func (h *hintSet) find(s string, found []bool) {
	if len(s) > scanMax || h.built.Load() {
		h.auto().find(s, found)
		return
	}
	lower := asciiLower(s)
	for id, k := range h.hints {
		if k != "" && strings.Contains(lower, k) {
			found[id] = true
		}
	}
}

// automaton finds hints in one pass over a text.
type automaton struct {
	// class maps a byte to its column in next; bytes no hint holds share
	// column 0, and upper case shares the column of lower case.
	class [256]uint8
	width int
	// next[state*width+class] is the state after reading a byte of that
	// class: the goto function with the failure links folded in. After
	// build, states are stored premultiplied by width, and negated when
	// some hint ends there, so find does one load and one test a byte.
	next []int32
	// out[state] lists the hints that end at state, its failure chain's
	// included.
	out [][]int32
}

// newAutomaton builds the automaton for hints, which are matched ignoring
// ASCII case. A hint's index in hints is its id.
func newAutomaton(hints []string) *automaton {
	h := &automaton{}
	n := 1
	for _, s := range hints {
		for i := 0; i < len(s); i++ {
			c := lowerASCII(s[i])
			if h.class[c] == 0 {
				if n == 256 {
					panic("redact: hints hold more than 255 distinct bytes")
				}
				h.class[c] = uint8(n)
				n++
			}
		}
	}
	for c := 'A'; c <= 'Z'; c++ {
		h.class[c] = h.class[c+'a'-'A']
	}
	h.width = n
	// The trie: state 0 is the root; -1 is a missing edge until the
	// failure links fill it.
	newState := func() int32 {
		for range h.width {
			h.next = append(h.next, -1)
		}
		h.out = append(h.out, nil)
		return int32(len(h.out) - 1)
	}
	newState()
	for id, s := range hints {
		if s == "" {
			continue
		}
		st := int32(0)
		for i := 0; i < len(s); i++ {
			k := int(st)*h.width + int(h.class[s[i]])
			if h.next[k] < 0 {
				ns := newState()
				h.next[k] = ns
			}
			st = h.next[k]
		}
		h.out[st] = append(h.out[st], int32(id))
	}
	// Breadth first: each state's failure is known before its children's.
	fail := make([]int32, len(h.out))
	queue := []int32{}
	for c := range h.width {
		if s := h.next[c]; s < 0 {
			h.next[c] = 0
		} else {
			fail[s] = 0
			queue = append(queue, s)
		}
	}
	for len(queue) > 0 {
		st := queue[0]
		queue = queue[1:]
		h.out[st] = append(h.out[st], h.out[fail[st]]...)
		for c := range h.width {
			k := int(st)*h.width + c
			if s := h.next[k]; s < 0 {
				h.next[k] = h.next[int(fail[st])*h.width+c]
			} else {
				fail[s] = h.next[int(fail[st])*h.width+c]
				queue = append(queue, s)
			}
		}
	}
	for k, st := range h.next {
		v := st * int32(h.width)
		if len(h.out[st]) > 0 {
			v = -v
		}
		h.next[k] = v
	}
	return h
}

// find sets found[id] for every hint that occurs in s, ignoring ASCII case.
func (h *automaton) find(s string, found []bool) {
	next, class, w := h.next, &h.class, int32(h.width)
	st := int32(0)
	for i := 0; i < len(s); i++ {
		st = next[st+int32(class[s[i]])]
		if st < 0 {
			st = -st
			for _, id := range h.out[st/w] {
				found[id] = true
			}
		}
	}
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
