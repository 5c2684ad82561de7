package vault

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctx0/ctx0/internal/inode"
)

// A holder that only adds records appends them: the file is the same one
// from the first save to the last (a group commit journals each write,
// and rewriting the file each time cost a rename over it per write, which
// ext4 flushes), and it reads back as every record in order. Once records
// it holds are dropped, the next save writes it whole.
func TestJournalAppends(t *testing.T) {
	p := filepath.Join(t.TempDir(), "journal")
	h := &held{path: p, j: journal{Holder: "1 2"}}
	var ino uint64
	var want []journalWrite
	for i := range 20 {
		w := journalWrite{Path: fmt.Sprintf("knowledge/fact-%d.md", i), Post: fmt.Sprintf("%040d", i)}
		h.j.Writes = append(h.j.Writes, w)
		want = append(want, w)
		if i == 10 {
			h.j.GitLocks = append(h.j.GitLocks, journalLock{Path: "index.lock", At: 7})
		}
		if err := h.save(); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			ino = inode.Of(fi)
		} else if inode.Of(fi) != ino {
			t.Fatalf("save %d replaced the journal file instead of appending to it", i)
		}
		got, found, err := readJournal(p)
		if err != nil || !found {
			t.Fatalf("read after save %d: found %v, %v", i, found, err)
		}
		if got.Holder != "1 2" || !slices.Equal(got.Writes, want) || len(got.GitLocks) != min(1, max(0, i-9)) {
			t.Fatalf("after save %d the journal reads %+v", i, got)
		}
	}

	h.dropWrites(5)
	h.j.Writes = append(h.j.Writes, journalWrite{Path: "knowledge/later.md"})
	if err := h.save(); err != nil {
		t.Fatal(err)
	}
	got, _, err := readJournal(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := append(want[:5:5], journalWrite{Path: "knowledge/later.md"}); !slices.Equal(got.Writes, want) || len(got.GitLocks) != 1 {
		t.Fatalf("after dropping records the journal reads %+v, want writes %+v", got, want)
	}
}

// A line cut short (its writer was killed while writing it) is left out,
// with what follows; the lines before it stand. A journal of one object,
// as ctx0 wrote before it appended, reads as before.
func TestParseJournal(t *testing.T) {
	line := func(j journal) string {
		data, err := json.Marshal(j)
		if err != nil {
			t.Fatal(err)
		}
		return string(data) + "\n"
	}
	first := line(journal{Holder: "9 1", Writes: []journalWrite{{Path: "a.md"}}})
	second := line(journal{Writes: []journalWrite{{Path: "b.md"}}, GitLocks: []journalLock{{Path: "index.lock"}}})
	tests := []struct {
		name, data string
		want       journal
	}{
		{"empty", "", journal{}},
		{"one object, no newline", first[:len(first)-1], journal{Holder: "9 1", Writes: []journalWrite{{Path: "a.md"}}}},
		{"two lines", first + second, journal{Holder: "9 1", Writes: []journalWrite{{Path: "a.md"}, {Path: "b.md"}}, GitLocks: []journalLock{{Path: "index.lock"}}}},
		{"second cut short", first + second[:len(second)/2], journal{Holder: "9 1", Writes: []journalWrite{{Path: "a.md"}}}},
		{"first cut short", first[:len(first)/2], journal{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := parseJournal([]byte(tt.data))
			if got.Holder != tt.want.Holder || !slices.Equal(got.Writes, tt.want.Writes) || !slices.Equal(got.GitLocks, tt.want.GitLocks) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// FuzzParseJournal: any bytes read as a journal, and a journal written
// and read again is the same.
func FuzzParseJournal(f *testing.F) {
	f.Add([]byte(`{"holder":"1 2","writes":[{"path":"a.md","post":"ab"}]}` + "\n" + `{"gitLocks":[{"path":"index.lock","at":3}]}` + "\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		j := parseJournal(data)
		out, err := json.Marshal(j)
		if err != nil {
			t.Fatal(err)
		}
		again := parseJournal(out)
		if again.Holder != j.Holder || !slices.Equal(again.Writes, j.Writes) || !slices.Equal(again.GitLocks, j.GitLocks) {
			t.Fatalf("%q read back as %+v, was %+v", out, again, j)
		}
	})
}
