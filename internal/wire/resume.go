package wire

import (
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesync/kubesync/resources"
)

// Resume makes a Value of an object that a checkpoint kept as its lazy value
// held it (resources.Raw.Bytes), at rev with uid. With lazy values it is a Raw
// of those bytes again, and nothing is decoded. Without, it is decoded by its
// RawSource's lazy decoder (which strips managed fields, as the lazy value's
// bytes are; made at the first such call, for every other) and converted. A Source whose lister/watcher reads nothing raw
// cannot decode it: the Value carries the error, and its caller lists the
// type.
func (s *Source) Resume(id, rev string, uid types.UID, encoded []byte) Value {
	v := Value{ID: id, Rev: rev, UID: uid}
	if s.lazy != nil {
		namespace, name, err := cache.SplitMetaNamespaceKey(id)
		if err != nil {
			v.Err = fmt.Errorf("%s: %w", s.Name, err)
			return v
		}
		return s.withLazy(v, namespace, name, resources.NewRaw(encoded, s.lazy))
	}
	if s.undecode == nil {
		rs, ok := s.LW.(RawSource)
		if !ok {
			v.Err = fmt.Errorf("%s %s: kept undecoded, and its type is not read raw now", s.Name, id)
			return v
		}
		s.undecode = rs.LazyDecoder(s.Name, s.decodes)
	}
	obj, err := s.undecode(encoded)
	if err != nil {
		v.Err = err
		return v
	}
	return s.Convert(obj)
}
