// Package identity says who a cluster is: the UID of its kube-system namespace,
// which a cluster keeps for its whole life and no other cluster shares. A
// checkpoint is kept under it, so that a warm start does not resume another
// cluster's state. It reads the identity (Read, For), in the background under a
// bound (Reader.Within), and tells a refused read apart (Refused), which asking
// again will not change.
package identity
