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
