package vault

import "os"

// preStore writes the blob of data, a file a write is about to put in the
// vault, before the write queues for the vault lock: a blob is named by
// its content, so storing it needs no lock, and the group's leader, which
// decides its writes one after another, then finds it stored (one stat)
// instead of compressing and creating the object itself. Best effort: the
// write stores whatever this did not. Nothing is stored in a vault whose
// repository is gone (the lock refuses those writes), so that the object
// folders are not made again under it.
func (v *Vault) preStore(data []byte) {
	if data == nil {
		return
	}
	if _, err := os.Stat(v.gitDir); err != nil {
		return
	}
	v.storeBlob(data)
}
