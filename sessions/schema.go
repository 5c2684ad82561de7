package sessions

// schemaVersion is stored in PRAGMA user_version. The state holds what
// cannot be rebuilt from the vault (which conversations the librarian has
// filed), so a newer schema migrates the old one instead of starting over.
const schemaVersion = 2

// migrations[i] takes the schema from version i to i+1.
var migrations = [][]string{{
	// files has a row per session file read, by its file key: the path
	// that names the session however its folder is reached (see keyOf).
	// offset is how far it has been read; the sums are hashes of the first
	// and of the last stateBytes bytes before offset, which tell a file
	// rewritten in place from one that only grew.
	`CREATE TABLE files (
		key       TEXT PRIMARY KEY,
		source    TEXT NOT NULL,
		path      TEXT NOT NULL,
		size      INTEGER NOT NULL,
		mtime     INTEGER NOT NULL, -- nanoseconds
		offset    INTEGER NOT NULL,
		head_sum  TEXT NOT NULL,
		tail_sum  TEXT NOT NULL,
		last_at   INTEGER NOT NULL, -- the newest message, milliseconds since 1970
		parser    TEXT NOT NULL,    -- JSON of transcript.State at offset
		skipped   TEXT NOT NULL,    -- JSON of transcript.Skipped, since the first byte
		messages  INTEGER NOT NULL,
		status    TEXT NOT NULL,    -- ok or error
		error     TEXT NOT NULL
	) WITHOUT ROWID`,
	// conversations group a file's messages by time gap. Their counts feed
	// the significance filter.
	`CREATE TABLE conversations (
		id            INTEGER PRIMARY KEY,
		file          TEXT NOT NULL,
		source        TEXT NOT NULL,
		session       TEXT NOT NULL,
		project       TEXT NOT NULL,
		cwd           TEXT NOT NULL,
		first_at      INTEGER NOT NULL,
		last_at       INTEGER NOT NULL,
		messages      INTEGER NOT NULL,
		user_messages INTEGER NOT NULL,
		tool_calls    INTEGER NOT NULL,
		saves         INTEGER NOT NULL, -- tool calls that saved a memory to ctx0
		status        TEXT NOT NULL,
		note          TEXT NOT NULL,    -- why it was skipped
		closed        INTEGER NOT NULL, -- 1 once handed over: new messages start another
		changed_at    INTEGER NOT NULL  -- when status last changed
	)`,
	`CREATE INDEX conversations_file ON conversations(file)`,
	`CREATE INDEX conversations_status ON conversations(status)`,
	// kept holds the statuses of a file's closed conversations while the
	// file is read again from the start (see --reimport), by the time of
	// each one's first message.
	`CREATE TABLE kept (
		file       TEXT NOT NULL,
		first_at   INTEGER NOT NULL,
		last_at    INTEGER NOT NULL,
		status     TEXT NOT NULL,
		note       TEXT NOT NULL,
		PRIMARY KEY (file, first_at)
	) WITHOUT ROWID`,
	// messages are stored redacted. pos is the message's place in its
	// file (see transcript.Message), unique per file, which makes storing
	// a message twice impossible.
	`CREATE TABLE messages (
		id           INTEGER PRIMARY KEY,
		file         TEXT NOT NULL,
		pos          INTEGER NOT NULL,
		conversation INTEGER NOT NULL,
		block        INTEGER NOT NULL,
		session      TEXT NOT NULL,
		role         TEXT NOT NULL,
		at           INTEGER NOT NULL, -- milliseconds since 1970
		text         TEXT NOT NULL,
		tools        TEXT NOT NULL,    -- JSON array of transcript.Tool, or ''
		cwd          TEXT NOT NULL,
		UNIQUE (file, pos)
	)`,
	`CREATE INDEX messages_conversation ON messages(conversation, at)`,
	`CREATE INDEX messages_block ON messages(block)`,
	// blocks are runs of up to blockSize consecutive messages of one
	// conversation; each is a row of blocks_fts with the same rowid, so a
	// search matches words said across a question and its answer.
	`CREATE TABLE blocks (
		id           INTEGER PRIMARY KEY,
		conversation INTEGER NOT NULL,
		count        INTEGER NOT NULL
	)`,
	`CREATE INDEX blocks_conversation ON blocks(conversation)`,
	`CREATE VIRTUAL TABLE blocks_fts USING fts5(text, tokenize = 'porter unicode61 remove_diacritics 2')`,
}, {
	// outcomes hold what a file's tool results said of calls that did not
	// go through (transcript.Chunk.Outcomes), by the call's id. A result is
	// often read in a later chunk than its call, whose message is stored
	// already, so outcomes are kept beside the messages and joined to them
	// when read. A state from before this table has none, and its tools no
	// ids: the librarian then judges failures from what was said.
	`CREATE TABLE outcomes (
		file    TEXT NOT NULL,
		tool    TEXT NOT NULL, -- transcript.Tool.ID
		outcome TEXT NOT NULL,
		PRIMARY KEY (file, tool)
	) WITHOUT ROWID`,
}}
