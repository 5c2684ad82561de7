// Command bench-stat-floor is the floor that scripts/bench-index.sh holds
// ctx0's full freshness check against (`ctx0 index` after one change,
// `ctx0 search` with no watcher): a whole process that lists every folder
// of the vault and stats every file in it, on all cores, and nothing else.
// An edit in place changes a file's mtime but not its folder's, so a check
// that trusts no watcher cannot do less than this. It prints the number of
// files statted.
//
// A folder whose mtime has not moved has the names it had, so the full
// check takes the names of such folders from the index rather than listing
// them. The floor of that is statting alone: with -save LIST the listing's
// names are written to the file LIST (each folder's path and its names,
// each followed by a NUL, an empty name ending the folder), and with -names
// LIST they are read from it, one read of the file instead of the
// listings, and statted as before.
//
//	go run ./scripts/bench-stat-floor [-save LIST | -names LIST] VAULT
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

func main() {
	save := flag.String("save", "", "write the names listed to this file")
	names := flag.String("names", "", "stat the names in this file (made by -save) instead of listing")
	flag.Parse()
	if flag.NArg() != 1 || (*save != "" && *names != "") {
		fmt.Fprintln(os.Stderr, "usage: bench-stat-floor [-save LIST | -names LIST] VAULT")
		os.Exit(2)
	}
	n, err := run(flag.Arg(0), *save, *names)
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
func run(root, save, names string) (int, error) {
	jobs := make(chan job, 64)
	var saved bytes.Buffer
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
	var err error
	switch {
	case names != "":
		err = load(names, jobs)
	case save != "":
		err = list(root, func(dir string, names []string) {
			saved.WriteString(dir + "\x00")
			for _, n := range names {
				saved.WriteString(n + "\x00")
			}
			saved.WriteString("\x00")
			send(jobs, dir, names)
		})
	default:
		err = list(root, func(dir string, names []string) { send(jobs, dir, names) })
	}
	close(jobs)
	wg.Wait()
	if err == nil && save != "" {
		err = os.WriteFile(save, saved.Bytes(), 0o644)
	}
	return count, err
}

// send hands the names of dir to the workers in chunks.
func send(jobs chan<- job, dir string, names []string) {
	for lo := 0; lo < len(names); lo += chunk {
		jobs <- job{dir, names[lo:min(lo+chunk, len(names))]}
	}
}

// load sends the folders and names of the file p, as -save wrote them.
func load(p string, jobs chan<- job) error {
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	parts := strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
	for i := 0; i < len(parts); {
		dir, j := parts[i], i+1
		for j < len(parts) && parts[j] != "" {
			j++
		}
		send(jobs, dir, parts[i+1:j])
		i = j + 1
	}
	return nil
}

// list gives the names in dir and in its folders to found, depth first.
func list(dir string, found func(dir string, names []string)) error {
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
			if err := list(filepath.Join(dir, d.Name()), found); err != nil {
				return err
			}
			continue
		}
		names = append(names, d.Name())
	}
	found(dir, names)
	return nil
}
