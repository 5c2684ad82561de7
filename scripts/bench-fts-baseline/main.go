// Command bench-fts-baseline is the floor that scripts/bench-index.sh holds
// ctx0's full rebuild against: a bare FTS5 bulk insert of the same files,
// with the tokenizer and the build settings ctx0 uses, in one transaction
// with a prepared statement, and nothing else (no parsing, no other
// tables). It prints the time to read the files and the time to insert.
//
//	go run ./scripts/bench-fts-baseline VAULT OUT.db
package main

import (
	"database/sql"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: bench-fts-baseline VAULT OUT.db")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintf(os.Stderr, "bench-fts-baseline: %v\n", err)
		os.Exit(1)
	}
}

func run(dir, out string) error {
	start := time.Now()
	var names, texts []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		names = append(names, p)
		texts = append(texts, string(data))
		return nil
	})
	if err != nil {
		return err
	}
	read := time.Since(start)
	os.Remove(out)
	db, err := sql.Open("sqlite", out+"?_pragma=journal_mode(OFF)&_pragma=synchronous(OFF)&_pragma=cache_size(-32000)")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE VIRTUAL TABLE fts USING fts5(name, body, tokenize = 'porter unicode61 remove_diacritics 2')`); err != nil {
		return err
	}
	start = time.Now()
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	st, err := tx.Prepare(`INSERT INTO fts(rowid, name, body) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	for i := range texts {
		if _, err := st.Exec(i+1, names[i], texts[i]); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	fmt.Printf("files=%d read_ms=%d insert_ms=%d\n", len(texts), read.Milliseconds(), time.Since(start).Milliseconds())
	return nil
}
