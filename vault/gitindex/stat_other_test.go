//go:build !linux

package gitindex

import "testing"

// checkStat is only implemented on Linux; git diff-files checks the rest.
func checkStat(t *testing.T, path, block string) {}
