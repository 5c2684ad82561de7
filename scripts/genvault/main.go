// Command genvault writes a synthetic ctx0 vault of N entries for
// benchmarks (see eval/synthvault).
//
//	go run ./scripts/genvault -n 10000 /tmp/vault10k
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/ctx0/ctx0/eval/synthvault"
)

func main() {
	n := flag.Int("n", 10000, "number of entries")
	size := flag.Int("size", 1000, "approximate body size in bytes")
	seed := flag.Uint64("seed", 1, "random seed (same seed, same vault)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: genvault [-n N] [-size BYTES] [-seed S] DIR")
		os.Exit(2)
	}
	if err := synthvault.Generate(flag.Arg(0), *n, *size, *seed); err != nil {
		fmt.Fprintf(os.Stderr, "genvault: %v\n", err)
		os.Exit(1)
	}
}
