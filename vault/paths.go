package vault

// NameOf returns the entry name of a file, given its slash-separated path
// relative to the vault root; ok is false for files that are not entries:
// other files, CONTEXT.md, anything in a hidden folder. Walk visits exactly
// the files for which it is ok. The index uses it to follow files it learns
// of one by one (a write's paths, the file system's events).
func NameOf(rel string) (name string, ok bool) { return nameOf(rel) }

// EntryPath is the file of an entry, relative to the vault root.
func EntryPath(name string) string { return entryPath(name) }
