package controlplane

import (
	"net/http"
	"strings"
)

// requestInfo is what the proxy needs to know about an apiserver request: the
// resource it is about and its Kubernetes verb.
type requestInfo struct {
	// Group is the API group, "" for the core group. Resource is the plural;
	// empty for non-resource requests (discovery, /healthz, /metrics...).
	Group, Version, Resource, Subresource string
	Namespace, Name                       string
	// Verb is the Kubernetes verb: get, list, watch, create, update, patch,
	// delete, deletecollection; for non-resource requests the lower-case method.
	Verb string
}

// isNamespaceSubresource reports whether s is a subresource of a namespace,
// not to be mistaken for a resource inside it (/api/v1/namespaces/NAME/status).
func isNamespaceSubresource(s string) bool {
	return s == "status" || s == "finalize"
}

// methodVerbs are the verbs of a resource request's methods, before the path
// and the query refine them (list, watch, deletecollection).
var methodVerbs = map[string]string{
	http.MethodGet: "get", http.MethodHead: "get", http.MethodPost: "create",
	http.MethodPut: "update", http.MethodPatch: "patch", http.MethodDelete: "delete",
}

// parseRequestInfo classifies r the way the apiserver does: paths are
// /api/v1/[namespaces/NS/]RESOURCE[/NAME[/SUBRESOURCE]] and
// /apis/GROUP/VERSION/[namespaces/NS/]RESOURCE[/NAME[/SUBRESOURCE]].
func parseRequestInfo(r *http.Request) requestInfo {
	info := requestInfo{Verb: strings.ToLower(r.Method)}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		info.Version, parts = parts[1], parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		info.Group, info.Version, parts = parts[1], parts[2], parts[3:]
	default:
		return info // discovery and other non-resource paths
	}

	if verb, ok := methodVerbs[r.Method]; ok {
		info.Verb = verb
	}
	// The deprecated /watch/ prefix.
	if parts[0] == "watch" && len(parts) > 1 {
		info.Verb, parts = "watch", parts[1:]
	}
	if parts[0] == "namespaces" && len(parts) > 1 {
		info.Namespace = parts[1]
		if len(parts) > 2 && !isNamespaceSubresource(parts[2]) {
			parts = parts[2:]
		}
	}
	info.Resource = parts[0]
	if len(parts) > 1 {
		info.Name = parts[1]
	}
	if len(parts) > 2 {
		info.Subresource = parts[2]
	}
	if info.Resource == "namespaces" {
		info.Namespace = ""
	}

	// As the apiserver: any value of watch but 0 and false makes a watch.
	watch := false
	if values, ok := r.URL.Query()["watch"]; ok && len(values) > 0 {
		v := strings.ToLower(values[0])
		watch = v != "0" && v != "false"
	}
	switch {
	case info.Verb == "get" && watch:
		info.Verb = "watch"
	case info.Verb == "get" && info.Name == "":
		info.Verb = "list"
	case info.Verb == "delete" && info.Name == "":
		info.Verb = "deletecollection"
	}
	return info
}
