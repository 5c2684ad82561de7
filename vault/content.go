package vault

import (
	"fmt"
	"strings"

	"github.com/ctx0/ctx0/vault/entry"
)

// checkText refuses text that a read of the entry would refuse (too large,
// binary, invalid UTF-8), naming the argument it came in: what is written
// can always be read back.
func checkText(verb, arg, text string) error {
	if err := entry.CheckContent([]byte(text)); err != nil {
		return fmt.Errorf("%s: %s: %w", verb, arg, err)
	}
	return nil
}

// checkChanges is checkText for the files a write puts in the vault, the
// last guard before they are stored: the frontmatter that went around a
// body can still take a file over the limit.
func checkChanges(changes []change) error {
	for _, c := range changes {
		if c.data == nil || (!c.plain && !strings.HasSuffix(c.path, ".md")) {
			continue
		}
		if err := entry.CheckContent(c.data); err != nil {
			return fmt.Errorf("write %s: %w", c.path, err)
		}
	}
	return nil
}
