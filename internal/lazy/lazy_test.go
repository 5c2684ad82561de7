package lazy

import (
	"sync"
	"testing"
)

func TestRegexpCompilesOnceOnFirstUse(t *testing.T) {
	re := Regexp(`^a+b$`)
	var wg sync.WaitGroup
	got := make(chan any, 8)
	for range 8 {
		wg.Go(func() { got <- re() })
	}
	wg.Wait()
	close(got)
	first := re()
	for r := range got {
		if r != first {
			t.Fatal("Regexp returned a different *regexp.Regexp on a later call")
		}
	}
	if !first.MatchString("aab") || first.MatchString("ba") {
		t.Fatalf("pattern %q does not match as compiled", first)
	}
}

func TestRegexpPanicsOnBadPatternAtFirstUse(t *testing.T) {
	re := Regexp(`(`) // no panic yet: nothing is compiled
	defer func() {
		if recover() == nil {
			t.Fatal("a pattern that does not compile did not panic")
		}
	}()
	re()
}
