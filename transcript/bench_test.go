package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkParse reads every published session file of a source, as one
// ingest of a new file does; MB/s is the parse speed. The baseline,
// json-valid, only checks that each line is JSON: the least any reader of
// these files must do.
func BenchmarkParse(b *testing.B) {
	for _, src := range []Source{ClaudeCode, Codex} {
		var files [][]byte
		size := 0
		names, _ := filepath.Glob(filepath.Join("testdata", string(src), "*.jsonl"))
		for _, n := range names {
			data, err := os.ReadFile(n)
			if err != nil {
				b.Fatal(err)
			}
			files = append(files, data)
			size += len(data)
		}
		b.Run(string(src), func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				for _, data := range files {
					var st State
					Parse(src, data, 0, &st, true)
				}
			}
		})
		b.Run(string(src)+"/json-valid", func(b *testing.B) {
			b.SetBytes(int64(size))
			for b.Loop() {
				for _, data := range files {
					for line := range bytes.Lines(data) {
						json.Valid(line)
					}
				}
			}
		})
	}
}
