package syncer

// WithClock lets the specs drive every delay and deadline with a fake clock.
var WithClock = withClock
