package transcript

import (
	"strings"
	"unicode/utf8"
)

// maxTarget is the longest tool target kept, in characters: enough for a
// path or a command line, not for a script or a file's content.
const maxTarget = 200

// str is the string field k of a decoded JSON object, or "".
func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// firstStr is the first of the fields keys that holds a non-empty string.
func firstStr(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s := str(m, k); s != "" {
			return s
		}
	}
	return ""
}

// targetLine makes a tool target fit on one line: the first non-blank line of
// s, cut to maxTarget characters, marked with … where anything was left out.
func targetLine(s string) string {
	s = strings.TrimSpace(s)
	cut := false
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s, cut = strings.TrimSpace(s[:i]), true
	}
	if utf8.RuneCountInString(s) > maxTarget {
		r := []rune(s)
		s, cut = string(r[:maxTarget]), true
	}
	if cut {
		s += " …"
	}
	return s
}

// patchFiles are the files an apply_patch patch adds, updates, deletes or
// moves to, in order.
func patchFiles(patch string) []string {
	var files []string
	for _, l := range strings.Split(patch, "\n") {
		l = strings.TrimSpace(l)
		for _, p := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if f, ok := strings.CutPrefix(l, p); ok && f != "" {
				files = append(files, f)
			}
		}
	}
	return files
}

// patchTools are the write tools of a patch: one per file it touches.
func patchTools(name, patch string) []Tool {
	var tools []Tool
	for _, f := range patchFiles(patch) {
		tools = append(tools, Tool{Name: name, Kind: Write, Target: targetLine(f)})
	}
	if tools == nil {
		tools = []Tool{{Name: name, Kind: Write}}
	}
	return tools
}
