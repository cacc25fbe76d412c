package controlplane

import (
	"encoding/json"
	"net/http"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Cut drops every open request (watches and requests in flight) of resource
// (plural) of group ("" for the core group), as a broken connection would: the
// upstream request is cancelled and the client's connection closed without a
// proper end. Other resources' streams are untouched, and new requests go
// through. It returns how many requests it cut.
//
// A cut watch ends its stream (client-go's watcher closes its result channel).
// A GET cut before its response came is retried by client-go itself, after
// 1 s, as for any connection dropped by the server.
func (p *Proxy) Cut(group, resource string) int {
	gr := schema.GroupResource{Group: group, Resource: resource}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cutLocked(func(s *stream) bool { return s.resource == gr })
}

// cutLocked cuts the open requests that match, and returns how many.
func (p *Proxy) cutLocked(match func(*stream) bool) int {
	n := 0
	for s := range p.streams {
		if match(s) {
			s.cancel(errCut)
			delete(p.streams, s)
			n++
		}
	}
	return n
}

// Refuse makes new requests of resource (plural) of group fail with 503
// Service Unavailable and a Status body, without Retry-After so that client-go
// does not retry on its own, until Allow. Open streams are not cut (see Cut).
func (p *Proxy) Refuse(group, resource string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refused[schema.GroupResource{Group: group, Resource: resource}] = true
}

// ExpireWatches makes new watches of resource (plural) of group fail with 410
// Gone (reason Expired) until Allow, whatever revision they start from, while
// lists and streaming lists (sendInitialEvents) go through: a watch cache whose
// window is shorter than a list of the type, so that every list is followed by
// an expired watch.
func (p *Proxy) ExpireWatches(group, resource string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.expired[schema.GroupResource{Group: group, Resource: resource}] = true
}

// Allow ends a Refuse or ExpireWatches of resource (plural) of group.
func (p *Proxy) Allow(group, resource string) {
	gr := schema.GroupResource{Group: group, Resource: resource}
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.refused, gr)
	delete(p.expired, gr)
}

// sendsInitialEvents reports whether r is a streaming list: a watch that
// starts with the current state.
func sendsInitialEvents(r *http.Request) bool {
	v := strings.ToLower(r.URL.Query().Get("sendInitialEvents"))
	return v == "true" || v == "1"
}

// Blackhole, turned on, drops every open request and makes new ones hang
// unanswered, until their context ends; turned off, it drops the connections
// of the requests it held (client-go retries a dropped GET after 1 s) and lets
// new requests through again.
func (p *Proxy) Blackhole(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !on {
		p.endBlackholeLocked()
		return
	}
	if p.blackhole == nil && !p.closed {
		p.blackhole = make(chan struct{})
	}
	p.cutLocked(func(*stream) bool { return true })
}

func (p *Proxy) endBlackholeLocked() {
	if p.blackhole != nil {
		close(p.blackhole)
		p.blackhole = nil
	}
}

// writeStatus answers with a Kubernetes Status, as the apiserver does, but
// without Retry-After so that client-go hands the error to its caller.
func writeStatus(w http.ResponseWriter, code int, reason metav1.StatusReason, message string) {
	status := metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure,
		Message:  message,
		Reason:   reason,
		Code:     int32(code),
	}
	body, _ := json.Marshal(status)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(body)
}
