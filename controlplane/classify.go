package controlplane

import "net/http"

// ClassifyRequest returns the API group ("" for the core group), the resource
// (plural; empty for non-resource paths) and the Kubernetes verb of r (get, list,
// watch, create, update, patch, delete, deletecollection), as the apiserver
// classifies them. A watch that streams the initial state (sendInitialEvents)
// is a watch.
func ClassifyRequest(r *http.Request) (group, resource, verb string) {
	info := parseRequestInfo(r)
	return info.Group, info.Resource, info.Verb
}
