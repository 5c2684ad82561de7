package vault

// SetQueueHook calls f at the steps of taking in queued writes (queueHook),
// for the tests of package vault_test, whose processes run a watcher.
func SetQueueHook(f func(step string)) { queueHook = f }
