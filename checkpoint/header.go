package checkpoint

import (
	"fmt"
	"slices"

	"github.com/kubesync/kubesync/resources"
)

// FormatVersion is the version of the file layout. A checkpoint written with
// another version is discarded.
const FormatVersion = 1

// Identity names the cluster a checkpoint was taken from.
type Identity struct {
	// Server is the apiserver's address (rest.Config.Host).
	Server string `json:"server"`
	// Cluster is the cluster's own identity, such as the UID of the kube-system
	// namespace (see ClusterUID). Empty means unknown: then only Server is compared,
	// and the caller confirms the cluster later with Store.Confirm.
	Cluster string `json:"cluster,omitempty"`
}

// TypeInfo is what a checkpoint records of one type: everything that changes the
// set of objects it lists.
type TypeInfo struct {
	Name          string `json:"name"`
	Group         string `json:"group"`
	Version       string `json:"version"`
	Resource      string `json:"resource"`
	Kind          string `json:"kind"`
	Namespace     string `json:"namespace,omitempty"`
	LabelSelector string `json:"labelSelector,omitempty"`
	FieldSelector string `json:"fieldSelector,omitempty"`
}

func typeInfo(t resources.Type) TypeInfo {
	return TypeInfo{
		Name: t.Name, Group: t.GVR.Group, Version: t.GVR.Version, Resource: t.GVR.Resource, Kind: t.Kind,
		Namespace: t.Namespace, LabelSelector: t.LabelSelector, FieldSelector: t.FieldSelector,
	}
}

// header is the first record of a checkpoint.
type header struct {
	Format   int        `json:"format"`
	Identity Identity   `json:"identity"`
	Types    []TypeInfo `json:"types"`
}

func newHeader(id Identity, types []resources.Type) header {
	h := header{Format: FormatVersion, Identity: id}
	for _, t := range types {
		h.Types = append(h.Types, typeInfo(t))
	}
	slices.SortFunc(h.Types, func(a, b TypeInfo) int {
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
	return h
}

// mismatch explains why a checkpoint with header old cannot serve want, or
// returns "".
func (want header) mismatch(old header) string {
	switch {
	case old.Format != want.Format:
		return fmt.Sprintf("format %d, not %d", old.Format, want.Format)
	case old.Identity.Server != want.Identity.Server:
		return fmt.Sprintf("taken from %s, not %s", old.Identity.Server, want.Identity.Server)
	case want.Identity.Cluster != "" && old.Identity.Cluster != "" && old.Identity.Cluster != want.Identity.Cluster:
		return fmt.Sprintf("taken from cluster %q, not %q", old.Identity.Cluster, want.Identity.Cluster)
	case !slices.Equal(old.Types, want.Types):
		return "taken with other types or selectors"
	}
	return ""
}
