package config

import (
	"strconv"
	"strings"
	"time"
)

// ParseDuration reads a duration setting: "30d" as whole days, else a Go
// duration ("36h").
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if n, ok := strings.CutSuffix(s, "d"); ok {
		d, err := strconv.Atoi(n)
		if err != nil {
			return 0, err
		}
		return time.Duration(d) * 24 * time.Hour, nil
	}
	return time.ParseDuration(s)
}
