package syncer

// WithClock lets the specs drive every delay and deadline with a fake clock.
var WithClock = withClock

// Decodes is how many objects the syncer has decoded in full.
func Decodes(s *Syncer) int64 { return s.cfg.decodes.Load() }
