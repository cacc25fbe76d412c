package checkpoint

// SetFormatForTest lets a spec write a checkpoint of another format.
func SetFormatForTest(s *Store, v int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hdr.Format, s.hdrDirty = v, true
}

// PendingForTest is the number of types with changes not yet written, once a write
// under way has finished.
func PendingForTest(s *Store) int {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending)
}
