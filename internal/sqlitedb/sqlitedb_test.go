package sqlitedb

import (
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"
)

var errNewer = errors.New("newer")

func TestMigrate(t *testing.T) {
	ctx := t.Context()
	p := filepath.Join(t.TempDir(), "state.db")
	db, err := sql.Open("sqlite", p)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	v1 := [][]string{{"CREATE TABLE a (x INTEGER)"}}
	v2 := append(v1, []string{"ALTER TABLE a ADD COLUMN y TEXT", "CREATE TABLE b (z TEXT)"})
	version := func() int {
		var v int
		if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, step := range []struct {
		migrations [][]string
		want       int
		err        error
	}{
		{v1, 1, nil},
		{v1, 1, nil}, // again: nothing to do
		{v2, 2, nil},
		{v1, 2, errNewer},
	} {
		if err := Migrate(ctx, db, step.migrations, errNewer); !errors.Is(err, step.err) {
			t.Fatalf("migrate to %d: %v, want %v", len(step.migrations), err, step.err)
		}
		if got := version(); got != step.want {
			t.Errorf("version %d, want %d", got, step.want)
		}
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO b (z) VALUES ('kept')"); err != nil {
		t.Fatalf("table of version 2: %v", err)
	}
	// A failing migration leaves the file as it was: no version 3, no c.
	bad := append(v2, []string{"CREATE TABLE c (w TEXT)", "NOT SQL"})
	if err := Migrate(ctx, db, bad, errNewer); err == nil {
		t.Fatal("a bad migration did not fail")
	}
	if got := version(); got != 2 {
		t.Errorf("version after a failed migration: %d", got)
	}
	if _, err := db.ExecContext(ctx, "SELECT * FROM c"); err == nil {
		t.Error("the failed migration's table is there")
	}
}
