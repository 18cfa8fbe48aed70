package pairing

// MinLobbyForTest sets MinLobby beyond the validated range, so that no
// countdown starts and a test starts its rounds by hand.
func (e *Event) MinLobbyForTest(n int) { e.cfg.MinLobby = n }
