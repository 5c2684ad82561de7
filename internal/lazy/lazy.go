// Package lazy defers work that package initialization would otherwise do
// in every ctx0 process. The CLI links every package, and most commands
// use few of them: a pattern compiled at init is start-up time that
// `ctx0 search` or `ctx0 remember` pays for a transcript parser it never
// runs.
package lazy

import (
	"regexp"
	"sync"
)

// Regexp returns a function that compiles expr on its first call and
// returns that same *regexp.Regexp on every call, from any goroutine. Like
// regexp.MustCompile it panics if expr does not compile, so every pattern
// must be exercised by its package's tests.
func Regexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// Value is a value opened on first use and kept: the zero Value is ready.
// Unlike sync.OnceValues, an open that fails is not kept, so the next Get
// tries again (a vault that was missing may exist by then).
type Value[T any] struct {
	mu   sync.Mutex
	done bool
	v    T
}

// Get returns the value, opening it with open the first time (or again
// after open failed).
func (l *Value[T]) Get(open func() (T, error)) (T, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done {
		return l.v, nil
	}
	v, err := open()
	if err != nil {
		var zero T
		return zero, err
	}
	l.v, l.done = v, true
	return v, nil
}

// Opened returns the value if it was opened.
func (l *Value[T]) Opened() (T, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.v, l.done
}
