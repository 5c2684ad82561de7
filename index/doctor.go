package index

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/ctx0/ctx0/vault"
)

// Problem is something doctor found wrong.
type Problem struct {
	Kind string `json:"kind"`
	Name string `json:"name,omitempty"` // the entry at fault, if one is
	// File holds the problem, slash-separated and relative to the vault
	// root: the entry's file, or for the index and git the file at fault.
	File    string `json:"file"`
	Message string `json:"message"`
}

// Kinds of problems.
const (
	ProblemBrokenLink     = "broken-link"     // a link no entry answers to
	ProblemAmbiguousLink  = "ambiguous-link"  // a link several entries answer to
	ProblemDuplicateAlias = "duplicate-alias" // a name several entries answer to
	ProblemUnparsable     = "unparsable"      // a file that is not a valid entry
	ProblemIndexMismatch  = "index-mismatch"  // the index disagreed with a file (doctor repairs it)
	ProblemIndexDamaged   = "index-damaged"   // the index file failed its integrity check (doctor rebuilds it)
	ProblemGit            = "git"             // the git repository
	ProblemSymlink        = "symlink"         // a symbolic link, which ctx0 does not follow
)

// Remedies say, for each kind of problem, what a person does about it;
// doctor --fix repairs none of these kinds (it stages files and removes
// what a killed ctx0 left, which the git kind reports with "run ctx0
// doctor --fix").
var Remedies = map[string]string{
	ProblemBrokenLink:     "point the link at an entry that exists (ctx0 search finds it), or create the entry it names (ctx0 add NAME)",
	ProblemAmbiguousLink:  "write the link with the entry's full name, folder/slug",
	ProblemDuplicateAlias: "keep the alias or title on one entry and take it off the others (their aliases: field, or ctx0 set NAME title ...)",
	ProblemUnparsable:     "fix the file's frontmatter by hand (the message says what is wrong); until then ctx0 searches and merges it as plain text",
	ProblemIndexMismatch:  "nothing: doctor repaired the index as it found it",
	ProblemIndexDamaged:   "nothing: doctor rebuilt the index as it found it",
	ProblemGit:            "what each message says",
	ProblemSymlink:        "replace the link with the file it leads to, or remove it: ctx0 reads nothing through it",
}

// Diagnosis is what doctor found.
type Diagnosis struct {
	Problems []Problem `json:"problems"`
	Checked  int       `json:"checked"` // entry files compared with the index by content
}

// Doctor checks the vault and its index: the index file's integrity (a
// damaged index is rebuilt), every entry file against its index row by
// content (disagreements are repaired), links that lead nowhere or to
// several entries, names that several entries answer to, files that are not
// valid entries, and the git repository.
func (ix *Index) Doctor(ctx context.Context) (Diagnosis, error) {
	d := Diagnosis{Problems: []Problem{}}
	if msg, err := ix.integrity(ctx); err != nil {
		return d, err
	} else if msg != "" {
		d.addFile(ProblemIndexDamaged, File, "the index failed its integrity check (%s); rebuilt it", msg)
		if err := ix.rebuild(ctx, "failed its integrity check ("+msg+")", false); err != nil {
			return d, err
		}
	}
	db, err := ix.forRead(ctx)
	if err != nil {
		return d, err
	}
	if d.Checked, err = ix.verifyContent(ctx, &d); err != nil {
		return d, err
	}
	broken, err := ix.BrokenLinks(ctx)
	if err != nil {
		return d, err
	}
	for _, l := range broken {
		if l.Status == linkAmbiguous {
			d.add(ProblemAmbiguousLink, l.From, "%s link %q answers to several entries; use the full name", l.Kind, l.Target)
		} else {
			d.add(ProblemBrokenLink, l.From, "%s link %q leads to no entry", l.Kind, l.Target)
		}
	}
	if err := duplicateAliases(ctx, db, &d); err != nil {
		return d, err
	}
	rows, err := db.QueryContext(ctx, `SELECT name, problem FROM entries WHERE problem != '' ORDER BY name`)
	if err != nil {
		return d, fmt.Errorf("doctor: %w", err)
	}
	for rows.Next() {
		var name, problem string
		if err := rows.Scan(&name, &problem); err != nil {
			rows.Close()
			return d, fmt.Errorf("doctor: %w", err)
		}
		d.add(ProblemUnparsable, name, "%s", problem)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return d, fmt.Errorf("doctor: %w", err)
	}
	links, err := ix.v.Links(ctx)
	if err != nil {
		return d, err
	}
	for _, l := range links {
		where := "in the vault"
		if l.Outside {
			where = "outside the vault"
		}
		d.addFile(ProblemSymlink, l.Path, "a symbolic link to %s (%s); ctx0 does not read, write or index through it", l.Target, where)
	}
	gitProblems, err := ix.v.CheckGit(ctx)
	if err != nil {
		return d, err
	}
	for _, p := range gitProblems {
		d.addFile(ProblemGit, p.File, "%s", p.Message)
	}
	return d, nil
}

// duplicateAliases adds a problem for each alias that is also an alias or
// the title of another entry: resolving it is ambiguous.
func duplicateAliases(ctx context.Context, db *sql.DB, d *Diagnosis) error {
	rows, err := db.QueryContext(ctx, `
		WITH k(fold, id, alias) AS (
			SELECT fold, entry_id, alias FROM aliases
			UNION ALL SELECT title_fold, id, NULL FROM entries WHERE title != ''),
		dup AS (SELECT fold FROM k GROUP BY fold HAVING count(DISTINCT id) > 1 AND count(alias) > 0)
		SELECT DISTINCT k.fold, coalesce(k.alias, e.title), e.name
		FROM k JOIN dup USING (fold) JOIN entries e ON e.id = k.id ORDER BY k.fold, e.name`)
	if err != nil {
		return fmt.Errorf("doctor: %w", err)
	}
	defer rows.Close()
	var key, alias string
	var names []string
	flush := func() {
		if len(names) > 1 {
			d.add(ProblemDuplicateAlias, names[0], "%q is an alias or the title of %d entries: %s", alias, len(names), strings.Join(names, ", "))
		}
		names = names[:0]
	}
	for rows.Next() {
		var k, a, name string
		if err := rows.Scan(&k, &a, &name); err != nil {
			return fmt.Errorf("doctor: %w", err)
		}
		if k != key {
			flush()
			key, alias = k, a
		}
		if len(names) == 0 || names[len(names)-1] != name {
			names = append(names, name)
		}
	}
	flush()
	return rows.Err()
}

// add adds a problem of entry name, held in its file.
func (d *Diagnosis) add(kind, name, format string, args ...any) {
	d.Problems = append(d.Problems, Problem{Kind: kind, Name: name, File: vault.EntryPath(name), Message: fmt.Sprintf(format, args...)})
}

// addFile adds a problem held in file, which is no entry's.
func (d *Diagnosis) addFile(kind, file, format string, args ...any) {
	d.Problems = append(d.Problems, Problem{Kind: kind, File: file, Message: fmt.Sprintf(format, args...)})
}

// integrity runs SQLite's quick check and FTS5's integrity check, and
// returns what they found wrong, "" if nothing.
func (ix *Index) integrity(ctx context.Context) (string, error) {
	db, err := ix.handle(ctx)
	if err != nil {
		return "", err
	}
	var res string
	if err := db.QueryRowContext(ctx, `PRAGMA quick_check(1)`).Scan(&res); err != nil {
		if isCorrupt(err) {
			return err.Error(), nil
		}
		return "", fmt.Errorf("check index %s: %w", ix.path, err)
	}
	if res != "ok" {
		return res, nil
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO fts(fts, rank) VALUES ('integrity-check', 0)`); err != nil {
		if isCorrupt(err) {
			return err.Error(), nil
		}
		return "", fmt.Errorf("check index %s: %w", ix.path, err)
	}
	return "", nil
}

// verifyContent compares every entry file with the index by content,
// whatever their sizes and mtimes say, adds a problem for each that
// disagrees, and repairs the index. It returns the number of files read.
func (ix *Index) verifyContent(ctx context.Context, d *Diagnosis) (int, error) {
	db, err := ix.handle(ctx)
	if err != nil {
		return 0, err
	}
	_, files, err := walkTree(ctx, ix.root, "", ix.now())
	if err != nil {
		return 0, err
	}
	rows, err := db.QueryContext(ctx, `SELECT name, hash FROM entries`)
	if err != nil {
		return 0, fmt.Errorf("doctor: %w", err)
	}
	indexed := map[string]string{}
	for rows.Next() {
		var name, hash string
		if err := rows.Scan(&name, &hash); err != nil {
			rows.Close()
			return 0, fmt.Errorf("doctor: %w", err)
		}
		indexed[name] = hash
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("doctor: %w", err)
	}
	var (
		mu    sync.Mutex
		wrong = map[string]string{} // name: what is wrong
		wg    sync.WaitGroup
		work  = make(chan string)
	)
	for range runtime.GOMAXPROCS(0) * 2 {
		wg.Go(func() {
			for name := range work {
				hash, ok := indexed[name]
				msg := ""
				switch {
				case !ok:
					msg = "the file is not in the index"
				default:
					data, err := vault.ReadFile(ix.root, vault.EntryPath(name))
					if err != nil {
						continue // gone, or unreadable: reported as unparsable
					}
					sum := sha256.Sum256(data)
					if hash != hex.EncodeToString(sum[:]) && !strings.HasPrefix(hash, "size:") {
						msg = "the index holds other content than the file"
					}
				}
				if msg != "" {
					mu.Lock()
					wrong[name] = msg
					mu.Unlock()
				}
			}
		})
	}
	onDisk := map[string]bool{}
	for _, f := range files {
		onDisk[f.name] = true
		work <- f.name
	}
	close(work)
	wg.Wait()
	for name := range indexed {
		if !onDisk[name] {
			wrong[name] = "the index holds an entry whose file is gone"
		}
	}
	if len(wrong) == 0 {
		return len(files), ctx.Err()
	}
	names := make([]string, 0, len(wrong))
	for n := range wrong {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		d.add(ProblemIndexMismatch, n, "%s; repaired", wrong[n])
	}
	if err := ix.unsettle(ctx, names); err != nil {
		return len(files), fmt.Errorf("doctor: %w", err)
	}
	_, err = ix.update(ctx, nil, names, nil, nil)
	return len(files), err
}

// unsettle marks the rows of the entries named unsettled, so that the next
// update reads their files whatever their sizes and mtimes say.
func (ix *Index) unsettle(ctx context.Context, names []string) error {
	unlock, err := lockFile(ctx, ix.writeLock(), false)
	if err != nil {
		return err
	}
	defer unlock()
	db, err := ix.open(ctx, true)
	if err != nil {
		return err
	}
	rows, err := loadRows(ctx, db, names)
	if err != nil {
		return err
	}
	return withTx(ctx, db, func(tx *sql.Tx) error {
		w := newWriter(tx)
		defer w.close()
		for _, r := range rows {
			if err := w.unsettle(ctx, r); err != nil {
				return err
			}
		}
		return nil
	})
}
