package ledger

// spaces numbers the namespaces of a table's ids, so that the arena holds an id
// as its namespace's number and its name: a namespace's name is written once, not
// in each of its objects' ids (at 100k ConfigMaps in namespaces of 12 bytes,
// 12 bytes a key). A number is freed with the last id in its namespace, and
// reused, so that namespaces that come and go do not add up.
type spaces struct {
	names  []string // by number-1; "" while free
	refs   []uint32 // ids held in each
	byName map[string]uint32
	free   []uint32
	// last is the namespace last acquired, and its number: a list brings its
	// objects grouped by namespace, so most lookups stop here.
	last  string
	lastN uint32
}

// lookup returns ns's number, 0 if no id is in it. It changes nothing, so readers
// may call it beside each other.
func (s *spaces) lookup(ns string) uint32 {
	if s.lastN != 0 && ns == s.last {
		return s.lastN
	}
	return s.byName[ns]
}

// acquire returns ns's number for one more id in it, numbering it if new.
func (s *spaces) acquire(ns string) uint32 {
	n := s.lookup(ns)
	if n == 0 {
		if k := len(s.free); k > 0 {
			n, s.free = s.free[k-1], s.free[:k-1]
			s.names[n-1] = ns
		} else {
			s.names, s.refs = append(s.names, ns), append(s.refs, 0)
			n = uint32(len(s.names))
		}
		if s.byName == nil {
			s.byName = map[string]uint32{}
		}
		s.byName[ns] = n
	}
	s.refs[n-1]++
	s.last, s.lastN = ns, n
	return n
}

// release drops one id of namespace n, and the number with the last.
func (s *spaces) release(n uint32) {
	if s.refs[n-1]--; s.refs[n-1] > 0 {
		return
	}
	delete(s.byName, s.names[n-1])
	if s.lastN == n {
		s.last, s.lastN = "", 0
	}
	s.names[n-1] = ""
	s.free = append(s.free, n)
}

// name is namespace n's name.
func (s *spaces) name(n uint32) string { return s.names[n-1] }
