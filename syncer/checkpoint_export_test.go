package syncer

// ClusterUID is the identity read of a warm start, for its spec.
var ClusterUID = clusterUID
