// Command bench-stat-floor is the floor that scripts/bench-index.sh holds
// ctx0's full freshness check against (`ctx0 index` after one change,
// `ctx0 search` with no watcher): a whole process that lists every folder
// of the vault and stats every file in it, on all cores, and nothing else.
// An edit in place changes a file's mtime but not its folder's, so a check
// that trusts no watcher cannot do less than this. It prints the number of
// files statted.
//
//	go run ./scripts/bench-stat-floor VAULT
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: bench-stat-floor VAULT")
		os.Exit(2)
	}
	n, err := run(os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench-stat-floor: %v\n", err)
		os.Exit(1)
	}
	fmt.Println(n, "files")
}

// chunk is how many files of a folder one worker stats at a time, as the
// index does.
const chunk = 1024

type job struct {
	dir   string
	names []string
}

// run lists the folders (skipping hidden ones, as the vault does) and
// stats their files relative to a handle on each folder, as the index does.
func run(root string) (int, error) {
	jobs := make(chan job, 64)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		count int
	)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			var st unix.Stat_t
			for j := range jobs {
				fd, err := unix.Open(j.dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
				if err != nil {
					continue
				}
				k := 0
				for _, n := range j.names {
					if unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
						k++
					}
				}
				unix.Close(fd)
				mu.Lock()
				count += k
				mu.Unlock()
			}
		})
	}
	err := list(root, jobs)
	close(jobs)
	wg.Wait()
	return count, err
}

// list sends the entries of dir and of its folders to jobs, depth first.
func list(dir string, jobs chan<- job) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	des, err := f.ReadDir(-1) // unsorted, as the index lists
	f.Close()
	if err != nil {
		return err
	}
	var names []string
	for _, d := range des {
		if strings.HasPrefix(d.Name(), ".") {
			continue
		}
		if d.IsDir() {
			if err := list(filepath.Join(dir, d.Name()), jobs); err != nil {
				return err
			}
			continue
		}
		names = append(names, d.Name())
	}
	for lo := 0; lo < len(names); lo += chunk {
		jobs <- job{dir, names[lo:min(lo+chunk, len(names))]}
	}
	return nil
}
