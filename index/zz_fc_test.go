package index

import (
	"os"
	"testing"
	"time"

	"github.com/ctx0/ctx0/vault"
)

func TestZZFullCheck(t *testing.T) {
	dir := os.Getenv("PROF_VAULT")
	if dir == "" {
		t.Skip()
	}
	ctx := t.Context()
	v, _ := vault.Open(ctx, dir)
	ix, _ := Open(ctx, v)
	db, _ := ix.handle(ctx)
	for range 2 {
		t0 := time.Now()
		rows, _ := loadStamps(ctx, db)
		t.Log("loadStamps", len(rows), time.Since(t0))
		t0 = time.Now()
		sus, n, _ := surveyFiles(ctx, db, ix.root, time.Now())
		t.Log("surveyFiles (incl. load)", len(sus), n, time.Since(t0))
		t0 = time.Now()
		var c int
		db.QueryRow(`SELECT count(*) FROM entries`).Scan(&c)
		t.Log("count", c, time.Since(t0))
	}
}

func TestZZConcat(t *testing.T) {
	dir := os.Getenv("PROF_VAULT")
	if dir == "" {
		t.Skip()
	}
	ctx := t.Context()
	v, _ := vault.Open(ctx, dir)
	ix, _ := Open(ctx, v)
	db, _ := ix.handle(ctx)
	for range 3 {
		t0 := time.Now()
		var s string
		err := db.QueryRow(`SELECT group_concat(name || char(31) || size || char(31) || mtime || char(31) || settled, char(30)) FROM entries`).Scan(&s)
		t.Log("concat", len(s), err, time.Since(t0))
		t0 = time.Now()
		rows, _ := db.Query(`SELECT name, size, mtime, settled FROM entries`)
		n := 0
		for rows.Next() {
			n++
		}
		rows.Close()
		t.Log("rows no scan", n, time.Since(t0))
	}
}
