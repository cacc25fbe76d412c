package sim

// Server is one apiserver: per resource, the revision its watch cache has
// reached and the oldest revision a watch may start from on it (the cache's
// start, after a restart). Its caches lag etcd independently of the other
// servers': CatchUp moves them.
type Server struct {
	Name   string
	c      *Cluster
	cache  map[string]int64
	oldest map[string]int64
}

func newServer(name string, c *Cluster) *Server {
	s := &Server{Name: name, c: c, cache: map[string]int64{}, oldest: map[string]int64{}}
	for r := range c.resources {
		s.cache[r], s.oldest[r] = c.rev, 0
	}
	return s
}

// Cached is the revision the server's cache of res has reached.
func (s *Server) Cached(res string) int64 { return s.cache[res] }

// Fresh reports whether the cache of res has reached etcd's revision, as a
// consistent read needs.
func (s *Server) Fresh(res string) bool { return s.cache[res] >= s.c.rev }

// CatchUp moves the cache of res to rev, at most etcd's revision; it never
// moves back.
func (s *Server) CatchUp(res string, rev int64) {
	s.cache[res] = max(s.cache[res], min(rev, s.c.rev))
}

// Restart restarts the server: its caches start again at etcd's revision, and
// a watch from before it is too old on this server.
func (s *Server) Restart() {
	for r := range s.cache {
		s.cache[r], s.oldest[r] = s.c.rev, s.c.rev
	}
}

// Expired reports whether a watch of res from rev is too old for this server
// (410): etcd compacted past it, or the cache started after it.
func (s *Server) Expired(res string, rev int64) bool {
	return rev < s.c.compacted || rev < s.oldest[res]
}

// Behind reports whether the cache of res has not reached rev yet: a watch or
// a read "not older than" rev waits for it, or answers too large a resource
// version.
func (s *Server) Behind(res string, rev int64) bool { return s.cache[res] < rev }
