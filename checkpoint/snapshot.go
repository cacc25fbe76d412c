package checkpoint

import "k8s.io/apimachinery/pkg/runtime"

// Snapshot is what a checkpoint held for each type when it was opened.
type Snapshot struct {
	// Identity is the identity the checkpoint was taken with. Its Cluster may be
	// empty if it was never confirmed.
	Identity Identity
	// Types holds every type of the header, by name.
	Types map[string]*TypeSnapshot
}

// TypeSnapshot is one type's persisted state.
type TypeSnapshot struct {
	// Revision is the last revision the type's watch reached with every object
	// below recorded, or "" if the type must list again (it never completed a list,
	// or an object could not be persisted).
	Revision string
	Objects  []Object
}

// Object is one persisted object.
type Object struct {
	// ID is namespace/name, or name for a cluster-scoped object.
	ID       string
	Revision string
	// Object is the decoded source object, to be converted again.
	Object runtime.Object
}

// Len is the number of objects of every type.
func (s *Snapshot) Len() int {
	n := 0
	for _, t := range s.Types {
		n += len(t.Objects)
	}
	return n
}

// empty reports a snapshot with no object and no revision: nothing to resume.
func (s *Snapshot) empty() bool {
	for _, t := range s.Types {
		if t.Revision != "" || len(t.Objects) > 0 {
			return false
		}
	}
	return true
}
