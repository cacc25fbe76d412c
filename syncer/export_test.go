package syncer

// WithClock lets the specs drive every delay and deadline with a fake clock.
var WithClock = withClock

// Decodes is how many objects the syncer has decoded in full.
func Decodes(s *Syncer) int64 { return s.cfg.decodes.Load() }

// DoneOf is closed when s.Wait would return, for specs that check without
// blocking.
func DoneOf(s *Syncer) <-chan struct{} { return s.done }
