package checkpoint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// FormatVersion is the version of the file layout. A checkpoint written with
// another version is discarded, except one of an earlier version, which this
// version reads (its records are a subset of this version's) and rewrites its
// header as this version at the next write. Version 2 encodes unstructured
// objects in a binary form that a warm start decodes several times faster than
// JSON. Version 3 keeps a lazy value's bytes as they are (Store.RecordLazy),
// which a warm start hands on undecoded. A program that only knows an earlier
// version discards a later version's file and starts cold.
const FormatVersion = 3

// compatible reports whether a checkpoint of format v can be read.
func compatible(v int) bool { return v >= 1 && v <= FormatVersion }

// identity is a syncer.ClusterIdentity as the header records it.
type identity struct {
	Server  string `json:"server"`
	Cluster string `json:"cluster,omitempty"`
}

// TypeInfo is what a checkpoint records of one type: everything that changes the
// set of objects it lists or what a persisted object is. KeysOnly changes the
// latter: a keys-only type persists each object's metadata alone, which a type
// that wants full values must not take for its objects. A conversion does not:
// the file holds source objects, and a warm start runs the type's conversion on
// them again.
type TypeInfo struct {
	Name          string `json:"name"`
	Group         string `json:"group"`
	Version       string `json:"version"`
	Resource      string `json:"resource"`
	Kind          string `json:"kind"`
	Namespace     string `json:"namespace,omitempty"`
	LabelSelector string `json:"labelSelector,omitempty"`
	FieldSelector string `json:"fieldSelector,omitempty"`
	KeysOnly      bool   `json:"keysOnly,omitempty"`
}

func typeInfo(t resources.Type) TypeInfo {
	return TypeInfo{
		Name: t.Name, Group: t.GVR.Group, Version: t.GVR.Version, Resource: t.GVR.Resource, Kind: t.Kind,
		Namespace: t.Namespace, LabelSelector: t.LabelSelector, FieldSelector: t.FieldSelector, KeysOnly: t.KeysOnly,
	}
}

// header is the first record of a checkpoint.
type header struct {
	Format   int        `json:"format"`
	Identity identity   `json:"identity"`
	Types    []TypeInfo `json:"types"`
}

func newHeader(id syncer.ClusterIdentity, types []resources.Type) header {
	h := header{Format: FormatVersion, Identity: identity(id)}
	for _, t := range types {
		h.Types = append(h.Types, typeInfo(t))
	}
	slices.SortFunc(h.Types, func(a, b TypeInfo) int { return strings.Compare(a.Name, b.Name) })
	return h
}

// mismatch explains why a checkpoint with header old cannot serve want, or
// returns "".
func (want header) mismatch(old header) string {
	switch {
	case !compatible(old.Format):
		return fmt.Sprintf("format %d, not %d", old.Format, want.Format)
	case old.Identity.Server != want.Identity.Server:
		return fmt.Sprintf("taken from %s, not %s", old.Identity.Server, want.Identity.Server)
	case want.Identity.Cluster != "" && old.Identity.Cluster != "" && old.Identity.Cluster != want.Identity.Cluster:
		return fmt.Sprintf("taken from cluster %q, not %q", old.Identity.Cluster, want.Identity.Cluster)
	case !slices.Equal(old.Types, want.Types):
		return typesMismatch(old.Types, want.Types)
	}
	return ""
}

// typesMismatch names a type whose persisted objects are of another view, or
// says the types or selectors differ.
func typesMismatch(old, want []TypeInfo) string {
	view := func(t TypeInfo) string {
		if t.KeysOnly {
			return "keys only"
		}
		return "with full values"
	}
	for _, w := range want {
		i := slices.IndexFunc(old, func(o TypeInfo) bool { return o.Name == w.Name })
		if i >= 0 && old[i].KeysOnly != w.KeysOnly {
			return fmt.Sprintf("type %s taken %s, not %s", w.Name, view(old[i]), view(w))
		}
	}
	return "taken with other types or selectors"
}
