package main

import "testing"

func TestMergedCommit(t *testing.T) {
	const h = "44f0975003ea22ea428e4a23359e4294ac080220"
	tests := []struct {
		name    string
		environ []string
		want    string
	}{
		{"one merge head", []string{"HOME=/h", "GITHEAD_" + h + "=origin/main"}, h},
		{"none", []string{"HOME=/h"}, "MERGE_HEAD"},
		{"an octopus", []string{"GITHEAD_" + h + "=a", "GITHEAD_8378600c0664ed0d4a041bd679cbdd2e0ba3b099=b"}, "MERGE_HEAD"},
		{"not a hash", []string{"GITHEAD_main=main"}, "MERGE_HEAD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mergedCommit(tt.environ); got != tt.want {
				t.Errorf("mergedCommit = %q, want %q", got, tt.want)
			}
		})
	}
}
