package vault

import (
	"bufio"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/plumbing/transport/ssh"
)

// authFor picks credentials for a remote URL the way git users expect,
// without running git:
//   - https: a user and password in the URL; else $CTX0_GIT_TOKEN (with
//     $CTX0_GIT_USERNAME, default "git"); else the matching line of
//     ~/.git-credentials (what `git credential-store` writes);
//   - ssh: the ssh agent ($SSH_AUTH_SOCK), else ~/.ssh/id_ed25519,
//     id_ecdsa or id_rsa; host keys are checked against ~/.ssh/known_hosts;
//   - local paths, file:// and git://: none.
func authFor(raw string) (transport.AuthMethod, error) {
	ep, err := transport.NewEndpoint(raw)
	if err != nil {
		return nil, fmt.Errorf("remote %q: %w", raw, err)
	}
	switch ep.Protocol {
	case "http", "https":
		if ep.User != "" && ep.Password != "" {
			return nil, nil // go-git reads them from the URL
		}
		if tok := os.Getenv("CTX0_GIT_TOKEN"); tok != "" {
			user := os.Getenv("CTX0_GIT_USERNAME")
			if user == "" {
				user = "git"
			}
			return &http.BasicAuth{Username: user, Password: tok}, nil
		}
		return storedCredentials(ep)
	case "ssh":
		if os.Getenv("SSH_AUTH_SOCK") != "" {
			return nil, nil // go-git's default is the agent
		}
		home, _ := os.UserHomeDir()
		user := ep.User
		if user == "" {
			user = "git"
		}
		for _, k := range []string{"id_ed25519", "id_ecdsa", "id_rsa"} {
			p := filepath.Join(home, ".ssh", k)
			if _, err := os.Stat(p); err != nil {
				continue
			}
			auth, err := ssh.NewPublicKeysFromFile(user, p, "")
			if err != nil {
				return nil, fmt.Errorf("ssh key %s: %w (use an ssh agent for keys with a passphrase)", p, err)
			}
			return auth, nil
		}
	}
	return nil, nil
}

// storedCredentials looks up ~/.git-credentials for the endpoint's host.
func storedCredentials(ep *transport.Endpoint) (transport.AuthMethod, error) {
	home, _ := os.UserHomeDir()
	f, err := os.Open(filepath.Join(home, ".git-credentials"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read ~/.git-credentials: %w", err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		u, err := url.Parse(strings.TrimSpace(s.Text()))
		if err != nil || u.User == nil || u.Scheme != ep.Protocol || u.Hostname() != ep.Host {
			continue
		}
		if pass, ok := u.User.Password(); ok {
			return &http.BasicAuth{Username: u.User.Username(), Password: pass}, nil
		}
	}
	return nil, s.Err()
}
