package gitindex

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
)

// checkStat compares the stat data git shows for an entry (a block of
// `git ls-files -s --debug`) with the file's.
func checkStat(t *testing.T, path, block string) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	for _, want := range []string{
		fmt.Sprintf("ctime: %d:%d\n", uint32(st.Ctim.Sec), uint32(st.Ctim.Nsec)),
		fmt.Sprintf("mtime: %d:%d\n", uint32(st.Mtim.Sec), uint32(st.Mtim.Nsec)),
		fmt.Sprintf("dev: %d\tino: %d\n", uint32(st.Dev), uint32(st.Ino)),
		fmt.Sprintf("uid: %d\tgid: %d\n", st.Uid, st.Gid),
		fmt.Sprintf("size: %d\t", uint32(st.Size)),
	} {
		if !strings.Contains(block, want) {
			t.Errorf("%s: stat data in the index\n%s\nlacks %q", path, block, want)
		}
	}
}
