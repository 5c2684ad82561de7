// Command ctx0 is the command line of ctx0, a long-term memory for AI agents
// kept as a git-versioned folder of markdown entries. It only parses
// requests and prints results; the work happens in the domain packages.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
