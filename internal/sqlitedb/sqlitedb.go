// Package sqlitedb holds what every SQLite database of ctx0 does alike:
// transactions that roll back on any failure, and a schema brought up to
// date by ordered migrations recorded in PRAGMA user_version.
package sqlitedb

import (
	"context"
	"database/sql"
	"fmt"
)

// WithTx runs fn in a transaction and commits it, or rolls it back if fn
// or the commit fails.
func WithTx(ctx context.Context, db *sql.DB, fn func(tx *sql.Tx) error) (err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
			return
		}
		err = tx.Commit()
	}()
	return fn(tx)
}

// Migrate brings db's schema to version len(migrations) in one
// transaction: migrations[v] are the statements that take version v to
// v+1, and PRAGMA user_version records where a file is. A file of a later
// version than this program knows is refused with newer, unchanged.
func Migrate(ctx context.Context, db *sql.DB, migrations [][]string, newer error) error {
	target := len(migrations)
	return WithTx(ctx, db, func(tx *sql.Tx) error {
		var v int
		if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
			return err
		}
		if v > target {
			return newer
		}
		for ; v < target; v++ {
			for _, stmt := range migrations[v] {
				if _, err := tx.ExecContext(ctx, stmt); err != nil {
					return fmt.Errorf("migrate to version %d: %w", v+1, err)
				}
			}
		}
		_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", target))
		return err
	})
}
