package vault

import (
	"os"
	"path/filepath"
)

// Locate finds the vault to use: the flag's folder if given, else
// $CTX0_VAULT, else the nearest folder from cwd upwards that holds .ctx0/,
// else ~/.ctx0/vault. It does not check that the folder is a vault, so init
// can use it too.
func Locate(flag, env, cwd, home string) string {
	if flag != "" {
		return flag
	}
	if env != "" {
		return env
	}
	for dir := cwd; dir != ""; {
		if fi, err := os.Stat(filepath.Join(dir, ".ctx0")); err == nil && fi.IsDir() && dir != home {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return filepath.Join(home, ".ctx0", "vault")
}
