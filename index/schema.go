package index

// schemaVersion is stored in PRAGMA user_version. An index of another
// version is rebuilt, not migrated: it is derived from the files.
const schemaVersion = 6

// schemaTables creates the index. Every table is derived from the files.
var schemaTables = []string{
	// entries has a row per entry file, including files that do not parse
	// (problem says why), which still answer to their name. id is also the
	// entry's rowid in fts, and grows with every change the index sees, so
	// that a higher id means a more recently changed entry.
	`CREATE TABLE entries (
		id            INTEGER PRIMARY KEY,
		name          TEXT NOT NULL UNIQUE,
		slug          TEXT NOT NULL,
		folder        TEXT NOT NULL,
		title         TEXT NOT NULL,
		title_fold    TEXT NOT NULL,
		type          TEXT NOT NULL,
		tags          TEXT NOT NULL, -- JSON array
		project       TEXT NOT NULL,
		pinned        INTEGER NOT NULL,
		source        TEXT NOT NULL,
		created       TEXT NOT NULL, -- RFC 3339 in UTC, '' when absent
		updated       TEXT NOT NULL,
		archived      TEXT NOT NULL,
		superseded_by TEXT NOT NULL,
		recency       TEXT NOT NULL, -- updated, else created, else the file's mtime: what changed last
		happened      TEXT NOT NULL, -- vault.Happened, '' when it says none (then --since and --until compare recency: see happenedAt)
		frontmatter   TEXT NOT NULL, -- JSON object
		body_sum      TEXT NOT NULL, -- vault.BodySum of the body
		hash          TEXT NOT NULL, -- SHA-256 of the file
		size          INTEGER NOT NULL,
		mtime         INTEGER NOT NULL, -- nanoseconds
		settled       INTEGER NOT NULL, -- 0: the file was read too soon after a change to trust size and mtime alone
		problem       TEXT NOT NULL,
		ino           INTEGER NOT NULL -- the file's inode number as read, 0 where the system has none
	)`,
	// aliases resolve names; they are not search terms.
	`CREATE TABLE aliases (entry_id INTEGER NOT NULL, alias TEXT NOT NULL, fold TEXT NOT NULL)`,
	`CREATE TABLE tags (entry_id INTEGER NOT NULL, tag TEXT NOT NULL, PRIMARY KEY (entry_id, tag)) WITHOUT ROWID`,
	// links has a row per link as written. The key columns say which names
	// could answer it: key_raw and key_norm an entry's name or slug, key_fold
	// and key_nfold its title or an alias (see fold). to_name is the entry it
	// resolves to, NULL when broken or ambiguous (status says which).
	`CREATE TABLE links (
		from_id   INTEGER NOT NULL,
		kind      TEXT NOT NULL, -- wiki, markdown or frontmatter
		target    TEXT NOT NULL,
		heading   TEXT NOT NULL,
		label     TEXT NOT NULL,
		key_raw   TEXT NOT NULL,
		key_norm  TEXT NOT NULL,
		key_fold  TEXT NOT NULL,
		key_nfold TEXT NOT NULL,
		to_name   TEXT,
		status    TEXT NOT NULL -- ok, broken, ambiguous, or pending until resolved
	)`,
	// folders holds every folder of the vault with its mtime, for the cheap
	// check: a folder whose mtime moved has gained, lost or replaced a file.
	`CREATE TABLE folders (path TEXT PRIMARY KEY, mtime INTEGER NOT NULL, settled INTEGER NOT NULL) WITHOUT ROWID`,
	// folder_sums holds, for every folder that holds or held entries, the
	// XOR of stampSum over its entries, kept by the writer: the full check
	// compares it with the same sum of the files it stats, and reads the
	// stamps of a folder's entries only when the two differ. names is the
	// XOR of nameSum (name and inode number) over them: the folder check
	// compares it with the folder's listing alone (see listNames).
	`CREATE TABLE folder_sums (path TEXT PRIMARY KEY, sum INTEGER NOT NULL, names INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID`,
	// folder_files (folderFilesTable), the entry files of each folder as
	// last listed, is not here: it is created when first written, so that
	// an index of this version gains it without a rebuild.
	`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID`,
	// Snippets are made in Go, which reads text as this tokenizer does
	// (index/query/text.go): a change of tokenizer changes both.
	`CREATE VIRTUAL TABLE fts USING fts5(name, title, tags, body, tokenize = 'porter unicode61 remove_diacritics 2')`,
	// Two small companions keep a search's cost bounded when a query
	// matches a large part of the vault (see Search): fts_head holds the
	// name, title and tags of every entry, fts_recent all of the most
	// recently changed entries (between recentSize and twice as many).
	`CREATE VIRTUAL TABLE fts_head USING fts5(name, title, tags, tokenize = 'porter unicode61 remove_diacritics 2')`,
	`CREATE VIRTUAL TABLE fts_recent USING fts5(name, title, tags, body, tokenize = 'porter unicode61 remove_diacritics 2')`,
}

// happenedAt is what --since and --until compare (vault.Happened): the
// happened column, or for an entry that says no time, when its file
// changed, so that it is still found in the time it was written.
func happenedAt(alias string) string {
	return "coalesce(nullif(" + alias + "happened, ''), " + alias + "recency)"
}

// ftsTables are the FTS5 tables. A search looks each term up in every
// segment of each, so they are kept in few: a rebuild leaves one each
// ('optimize'), and the small segment that each update adds is merged
// with the others of its level once there are two ('usermerge' 2, then a
// bounded 'merge' after each update), where FTS5 alone lets up to sixteen
// pile up.
var ftsTables = []string{"fts", "fts_head", "fts_recent"}

// mergePages bounds the merge work of one update, in pages: merging its
// small segments takes a few; a merge into a large one is spread over many
// updates.
const mergePages = 64

// recentSize is the least number of entries fts_recent holds once the
// vault has that many.
const recentSize = 1000

// schemaIndexes are created after a rebuild's bulk insert, which is faster
// than keeping them up to date row by row.
var schemaIndexes = []string{
	`CREATE INDEX entries_slug ON entries(slug)`,
	`CREATE INDEX entries_title ON entries(title_fold)`,
	`CREATE INDEX entries_body_sum ON entries(body_sum)`,
	`CREATE INDEX entries_folder ON entries(folder)`,
	// What the checks read of the entries of a folder (whose names lie
	// together), narrow enough to scan fast.
	`CREATE INDEX entries_stamps ON entries(name, size, mtime, settled, ino)`,
	// The few rows whose stamps a check cannot trust alone, by folder.
	`CREATE INDEX entries_unsettled ON entries(folder) WHERE settled = 0`,
	// What search leaves out unless asked (see Query.filter). A query can
	// use it only if its WHERE holds this very expression as a term.
	`CREATE INDEX entries_hidden ON entries(id) WHERE ` + hiddenEntries,
	`CREATE INDEX aliases_fold ON aliases(fold)`,
	`CREATE INDEX aliases_entry ON aliases(entry_id)`,
	`CREATE INDEX links_from ON links(from_id)`,
	`CREATE INDEX links_to ON links(to_name)`,
	`CREATE INDEX links_raw ON links(key_raw)`,
	`CREATE INDEX links_norm ON links(key_norm)`,
	`CREATE INDEX links_fold ON links(key_fold)`,
	`CREATE INDEX links_nfold ON links(key_nfold)`,
}

// bm25Weights weigh the fts columns (name, title, tags, body): a match in
// the title or the name counts ten and five times one in the body.
const bm25Weights = "5.0, 10.0, 3.0, 1.0"

// headWeights weigh the fts_head columns (name, title, tags) alike.
const headWeights = "5.0, 10.0, 3.0"

// Keys of the meta table.
const (
	metaBuilt = "built" // when the last rebuild finished, RFC 3339
)
