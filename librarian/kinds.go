package librarian

import "github.com/ctx0/ctx0/internal/kind"

// The rules that read a sentence are internal/kind's, shared with the
// vault's typing of a remembered text; these are their names here.
var (
	asking       = kind.Asking
	decision     = kind.Decision
	milestone    = kind.Milestone
	opener       = kind.Opener
	knowledge    = kind.Knowledge
	notNames     = kind.NotNames
	sentences    = kind.Sentences
	clean        = kind.Clean
	cut          = kind.Cut
	capitalize   = kind.Capitalize
	isFact       = kind.IsFact
	personFactIn = kind.PersonFact
)
