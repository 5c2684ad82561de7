// Package ctx0 holds what the whole program shares about the vault format:
// the guide for agents, CONTEXT.md, which sits at the repository root so that
// people and agents reading this repository find it first, and which
// templates copies into every new vault.
package ctx0

import _ "embed"

// VaultGuide is the text of CONTEXT.md: how a vault is laid out and how to
// read and write it safely with plain file tools.
//
//go:embed CONTEXT.md
var VaultGuide string
