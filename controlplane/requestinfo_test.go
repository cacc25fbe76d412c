package controlplane

import (
	"net/http/httptest"
	"testing"
)

func TestParseRequestInfo(t *testing.T) {
	tests := []struct {
		method, target string
		want           requestInfo
	}{
		{"GET", "/api/v1/pods", requestInfo{Version: "v1", Resource: "pods", Verb: "list"}},
		{"GET", "/api/v1/pods?watch=true&resourceVersion=5", requestInfo{Version: "v1", Resource: "pods", Verb: "watch"}},
		{"GET", "/api/v1/pods?watch=false", requestInfo{Version: "v1", Resource: "pods", Verb: "list"}},
		{"GET", "/api/v1/pods?watch=True&sendInitialEvents=true", requestInfo{Version: "v1", Resource: "pods", Verb: "watch"}},
		{"GET", "/api/v1/namespaces", requestInfo{Version: "v1", Resource: "namespaces", Verb: "list"}},
		{"GET", "/api/v1/namespaces/kube-system", requestInfo{Version: "v1", Resource: "namespaces", Name: "kube-system", Verb: "get"}},
		{"PUT", "/api/v1/namespaces/ns1/finalize", requestInfo{Version: "v1", Resource: "namespaces", Name: "ns1", Subresource: "finalize", Verb: "update"}},
		{"GET", "/api/v1/namespaces/ns1/pods", requestInfo{Version: "v1", Namespace: "ns1", Resource: "pods", Verb: "list"}},
		{"GET", "/api/v1/namespaces/ns1/pods/p1/log", requestInfo{Version: "v1", Namespace: "ns1", Resource: "pods", Name: "p1", Subresource: "log", Verb: "get"}},
		{"DELETE", "/api/v1/namespaces/ns1/configmaps", requestInfo{Version: "v1", Namespace: "ns1", Resource: "configmaps", Verb: "deletecollection"}},
		{"POST", "/apis/apps/v1/namespaces/ns1/deployments", requestInfo{Group: "apps", Version: "v1", Namespace: "ns1", Resource: "deployments", Verb: "create"}},
		{"GET", "/apis/example.com/v1/widgets?watch=1", requestInfo{Group: "example.com", Version: "v1", Resource: "widgets", Verb: "watch"}},
		{"GET", "/api/v1/watch/namespaces/ns1/pods", requestInfo{Version: "v1", Namespace: "ns1", Resource: "pods", Verb: "watch"}},
		{"PATCH", "/apis/apps/v1/namespaces/ns1/deployments/d/status", requestInfo{Group: "apps", Version: "v1", Namespace: "ns1", Resource: "deployments", Name: "d", Subresource: "status", Verb: "patch"}},
		{"GET", "/apis/apps/v1", requestInfo{Verb: "get"}},
		{"GET", "/api", requestInfo{Verb: "get"}},
		{"GET", "/metrics", requestInfo{Verb: "get"}},
	}
	for _, tt := range tests {
		got := parseRequestInfo(httptest.NewRequest(tt.method, tt.target, nil))
		if got != tt.want {
			t.Errorf("%s %s: got %+v, want %+v", tt.method, tt.target, got, tt.want)
		}
	}
}
