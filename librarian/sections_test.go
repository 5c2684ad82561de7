package librarian

import (
	"strings"
	"testing"
)

func TestInsertSection(t *testing.T) {
	sec := func(h string) string { return "## " + h + "\n\nbody " + h + "\n" }
	for _, tc := range []struct {
		name, body, heading, want string
	}{
		{"empty", "", "## 2026-01-27 09:00 A", sec("2026-01-27 09:00 A")},
		{"after", sec("2026-01-27 08:00 X"), "## 2026-01-27 09:00 A", sec("2026-01-27 08:00 X") + "\n" + sec("2026-01-27 09:00 A")},
		{"before", sec("2026-01-27 10:00 X"), "## 2026-01-27 09:00 A", sec("2026-01-27 09:00 A") + "\n" + sec("2026-01-27 10:00 X")},
		{"between", "Intro.\n\n" + sec("2026-01-27 08:00 X") + "\n" + sec("2026-01-27 10:00 Y"), "## 2026-01-27 09:00 A",
			"Intro.\n\n" + sec("2026-01-27 08:00 X") + "\n" + sec("2026-01-27 09:00 A") + "\n" + sec("2026-01-27 10:00 Y")},
		{"same time goes after", sec("2026-01-27 09:00 X"), "## 2026-01-27 09:00 A", sec("2026-01-27 09:00 X") + "\n" + sec("2026-01-27 09:00 A")},
		{"no trailing newline", "Intro.", "## 2026-01-27 09:00 A", "Intro.\n\n" + sec("2026-01-27 09:00 A")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := strings.TrimPrefix(tc.heading, "## ")
			if got := insertSection(tc.body, tc.heading, sec(h)); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestSections(t *testing.T) {
	body := "## Overview\n\nOld.\n\n## Activity\n\n- one\n\n## Notes\n\nN.\n"
	for _, tc := range []struct {
		name, got, want string
	}{
		{"append", appendToSection(body, "Activity", "- two"), "## Overview\n\nOld.\n\n## Activity\n\n- one\n- two\n\n## Notes\n\nN.\n"},
		{"append to an empty section", appendToSection("## Activity\n", "Activity", "- one"), "## Activity\n\n- one\n"},
		{"append to the last section", appendToSection("## Notes\n\n- a\n", "Notes", "- b"), "## Notes\n\n- a\n- b\n"},
		{"append adds the section", appendToSection("Hello.\n", "Notes", "- a"), "Hello.\n\n## Notes\n\n- a\n"},
		{"replace", replaceSection(body, "Overview", "New."), "## Overview\n\nNew.\n\n## Activity\n\n- one\n\n## Notes\n\nN.\n"},
		{"replace the last", replaceSection(body, "Notes", "M."), "## Overview\n\nOld.\n\n## Activity\n\n- one\n\n## Notes\n\nM.\n"},
		{"replace adds the section first", replaceSection("## Activity\n\n- one\n", "Overview", "New."), "## Overview\n\nNew.\n\n## Activity\n\n- one\n"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: got\n%q\nwant\n%q", tc.name, tc.got, tc.want)
		}
	}
}
