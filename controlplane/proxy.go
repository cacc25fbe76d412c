package controlplane

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"maps"
	"net"
	"net/http"
	"net/http/httputil"
	"slices"
	"sync"
	"time"

	"golang.org/x/time/rate"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// errCut is the cause given to the upstream request of a stream the proxy cut.
var errCut = errors.New("cut by the proxy")

// Proxy is a fault-injecting reverse proxy in front of a ControlPlane's
// apiserver: plain HTTP on a random loopback port, forwarding every request as
// the admin (see WithProxyUser). It streams watches as they come, and it
// follows the apiserver across restarts. Its methods are safe for concurrent use.
//
// Three faults take the whole apiserver away and back, as a client meets it
// gone:
//   - RefuseConnections: refused, as a stopped apiserver (connections closed,
//     new ones refused);
//   - StallAll: held silent, as behind a partition (connections stay open,
//     nothing goes through either way, no error);
//   - CutAll: cut, as a broken link (every connection dropped at once; new
//     ones go through).
//
// The others are finer, most of them per resource, named by API group ("" for
// the core group) and plural, the way the apiserver parses request paths:
//   - Cut drops the open requests (watches included) of one resource;
//   - Refuse makes new requests of one resource fail with 503 until Allow;
//   - ExpireWatches makes its watches fail with 410 until Allow;
//   - Blackhole drops everything open and holds new requests unanswered;
//   - Stall keeps its connections open but forwards nothing, in either
//     direction, until Unstall: a stuck middlebox;
//   - StallOpen and StallOpenAll do so for good to the connections open now,
//     while new ones go through: half-open connections;
//   - Throttle caps the bandwidth of one resource's responses.
//
// The proxy speaks HTTP/1.1 only to its clients, never h2 (see Protocols): each
// watch has a connection of its own, and no HTTP/2 health check can notice a
// stalled one, as through most real proxies.
type Proxy struct {
	cp      *ControlPlane
	addr    string // host:port, kept while RefuseConnections holds
	server  *http.Server
	rp      *httputil.ReverseProxy
	observe func(*http.Request) // nil unless WithProxyRequestObserver

	mu       sync.Mutex
	listener *connListener // nil while RefuseConnections holds
	conns    map[net.Conn]struct{}
	streams  map[*stream]struct{}
	refused  map[schema.GroupResource]bool
	expired  map[schema.GroupResource]bool
	// gone counts the watches answered 410 while expired.
	gone      map[schema.GroupResource]int
	blackhole chan struct{} // non-nil while blackholing; closed when it ends
	stalls    stalls
	limits    map[schema.GroupResource]*rate.Limiter
	requests  map[requestKey]int
	lists     map[schema.GroupResource][]time.Time
	protocols map[string]int
	closed    bool
}

// stream is one request being proxied.
type stream struct {
	resource schema.GroupResource
	verb     string
	cancel   context.CancelCauseFunc
	stalled  chan struct{} // set by StallOpen; guarded by Proxy.mu
}

type requestKey struct {
	resource schema.GroupResource
	verb     string
}

// ProxyOption configures a Proxy.
type ProxyOption func(*proxyOptions)

type proxyOptions struct {
	errorLog *log.Logger
	user     *rest.Config
	observe  func(*http.Request)
}

// WithProxyErrorLog sends the proxy's error messages (failed upstream requests,
// broken copies) to l. By default they are discarded: the faults the proxy
// injects cause them by design.
func WithProxyErrorLog(l *log.Logger) ProxyOption {
	return func(o *proxyOptions) { o.errorLog = l }
}

// WithProxyRequestObserver calls observe with each request the proxy receives,
// before any fault applies, e.g. to check its query. observe must not keep or
// modify the request, and must be safe for concurrent use. By default nothing
// is called.
func WithProxyRequestObserver(observe func(*http.Request)) ProxyOption {
	return func(o *proxyOptions) { o.observe = observe }
}

// WithProxyUser makes the proxy forward requests with the credentials of user
// (a rest.Config from AddUser) instead of the admin's.
func WithProxyUser(user *rest.Config) ProxyOption {
	return func(o *proxyOptions) { o.user = user }
}

// NewProxy starts a Proxy in front of cp's apiserver. Close it when done.
func NewProxy(cp *ControlPlane, opts ...ProxyOption) (*Proxy, error) {
	o := proxyOptions{errorLog: log.New(io.Discard, "", 0)}
	for _, opt := range opts {
		opt(&o)
	}
	identity := cp.Config()
	if o.user != nil {
		identity = rest.CopyConfig(o.user)
	}
	transport, err := rest.TransportFor(identity)
	if err != nil {
		return nil, fmt.Errorf("creating the proxy's transport: %w", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening for the proxy: %w", err)
	}
	p := &Proxy{
		cp:        cp,
		observe:   o.observe,
		addr:      l.Addr().String(),
		conns:     map[net.Conn]struct{}{},
		streams:   map[*stream]struct{}{},
		refused:   map[schema.GroupResource]bool{},
		expired:   map[schema.GroupResource]bool{},
		gone:      map[schema.GroupResource]int{},
		stalls:    newStalls(),
		limits:    map[schema.GroupResource]*rate.Limiter{},
		requests:  map[requestKey]int{},
		lists:     map[schema.GroupResource][]time.Time{},
		protocols: map[string]int{},
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			// Resolved per request, so that the proxy follows the apiserver
			// should a restart move it.
			pr.SetURL(p.cp.APIServerURL())
		},
		Transport:     transport,
		FlushInterval: -1, // stream watch events as they come
		ErrorLog:      o.errorLog,
		ErrorHandler:  p.upstreamError,
	}
	// HTTP/1.1 only, stated rather than left to defaults: no h2c upgrade.
	var protocols http.Protocols
	protocols.SetHTTP1(true)
	p.server = &http.Server{
		Handler:           p,
		ErrorLog:          o.errorLog,
		ReadHeaderTimeout: 10 * time.Second,
		Protocols:         &protocols,
		ConnState:         p.connState,
	}
	p.listener = &connListener{Listener: l, p: p}
	go p.serve(p.listener)
	return p, nil
}

// URL returns the proxy's base URL, http://127.0.0.1:PORT.
func (p *Proxy) URL() string {
	return "http://" + p.addr
}

// Config returns a rest.Config that reaches the apiserver through the proxy,
// acting as the admin (or WithProxyUser's user), with client-side rate
// limiting off (QPS -1).
func (p *Proxy) Config() *rest.Config {
	return &rest.Config{Host: p.URL(), QPS: -1}
}

// Close stops the proxy and drops every connection through it.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.endBlackholeLocked()
	p.stalls.endAll()
	p.cutLocked(func(*stream) bool { return true })
	p.mu.Unlock()
	if err := p.server.Close(); err != nil {
		return fmt.Errorf("closing proxy: %w", err)
	}
	return nil
}

// ServeHTTP proxies one request, applying the faults in force.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p.observe != nil {
		p.observe(r)
	}
	info := parseRequestInfo(r)
	gr := schema.GroupResource{Group: info.Group, Resource: info.Resource}
	ctx, s := p.admit(w, r, info, gr)
	if s == nil {
		return // answered
	}
	defer func() {
		p.mu.Lock()
		delete(p.streams, s)
		p.mu.Unlock()
		s.cancel(nil)
	}()
	// A request that arrives during a stall is held, unforwarded, until the
	// stall ends or the client gives up; a response or request body in flight
	// stops where it is.
	if err := p.waitUnstalled(ctx, s); err != nil {
		panic(http.ErrAbortHandler)
	}
	gw := &gatedWriter{ResponseWriter: w, p: p, ctx: ctx, stream: s}
	if r.Body != nil && r.Body != http.NoBody {
		r.Body = &gatedBody{ReadCloser: r.Body, p: p, ctx: ctx, stream: s}
	}
	p.rp.ServeHTTP(gw, r.WithContext(ctx))
	if errors.Is(context.Cause(ctx), errCut) {
		// The reverse proxy panics by itself when a cut breaks a response body
		// it is copying; this covers cuts before the response headers came.
		panic(http.ErrAbortHandler)
	}
}

// admit counts a request and either answers it itself (a nil stream: refused,
// expired, or not HTTP/1.1; a blackhole drops it) or registers the stream that
// will forward it, with the context that a cut cancels.
func (p *Proxy) admit(w http.ResponseWriter, r *http.Request, info requestInfo, gr schema.GroupResource) (context.Context, *stream) {
	p.mu.Lock()
	p.requests[requestKey{resource: gr, verb: info.Verb}]++
	p.protocols[r.Proto]++
	if info.Verb == "list" || (info.Verb == "watch" && sendsInitialEvents(r)) {
		p.lists[gr] = append(p.lists[gr], time.Now())
	}
	hole := p.blackhole
	refused := info.Resource != "" && p.refused[gr]
	expired := info.Verb == "watch" && p.expired[gr] && !sendsInitialEvents(r)
	if expired {
		p.gone[gr]++
	}
	if r.ProtoMajor != 1 || hole != nil || refused || expired {
		p.mu.Unlock()
		p.turnAway(w, r, gr, hole, refused)
		return nil, nil
	}
	ctx, cancel := context.WithCancelCause(r.Context())
	s := &stream{resource: gr, verb: info.Verb, cancel: cancel}
	p.streams[s] = struct{}{}
	p.mu.Unlock()
	return ctx, s
}

// turnAway answers a request the proxy does not forward, in admit's order.
func (p *Proxy) turnAway(w http.ResponseWriter, r *http.Request, gr schema.GroupResource, hole <-chan struct{}, refused bool) {
	switch {
	case r.ProtoMajor != 1:
		// Go's HTTP/1 server hands an h2 preface ("PRI * HTTP/2.0") to the
		// handler: turn it away.
		writeStatus(w, http.StatusHTTPVersionNotSupported, metav1.StatusReasonBadRequest, "the proxy speaks HTTP/1.1 only")
	case hole != nil:
		select {
		case <-hole:
		case <-r.Context().Done():
		}
		panic(http.ErrAbortHandler) // drop the connection without an answer
	case refused:
		writeStatus(w, http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable,
			fmt.Sprintf("the proxy refuses requests for %s", gr))
	default:
		writeStatus(w, http.StatusGone, metav1.StatusReasonExpired,
			fmt.Sprintf("the proxy expires watches of %s", gr))
	}
}

// upstreamError answers a request whose upstream round trip failed: nothing
// for a cut one (ServeHTTP then drops the connection), 502 otherwise.
func (p *Proxy) upstreamError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(context.Cause(r.Context()), errCut) {
		return
	}
	p.rp.ErrorLog.Printf("proxy: %s %s: %v", r.Method, r.URL.Path, err)
	writeStatus(w, http.StatusBadGateway, metav1.StatusReasonUnknown, "the proxy cannot reach the apiserver: "+err.Error())
}

// Requests returns how many requests of verb (get, list, watch, create, update,
// patch, delete, deletecollection) to resource (plural) of group ("" for the
// core group) the proxy has seen, whether it forwarded them or not.
func (p *Proxy) Requests(group, resource, verb string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.requests[requestKey{resource: schema.GroupResource{Group: group, Resource: resource}, verb: verb}]
}

// ExpiredWatches returns how many watches of resource (plural) of group the
// proxy answered with 410 Gone itself (ExpireWatches): what shows that such a
// fault fired, however many lists the client made meanwhile.
func (p *Proxy) ExpiredWatches(group, resource string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gone[schema.GroupResource{Group: group, Resource: resource}]
}

// Lists returns when the proxy received each list of resource (plural) of
// group: a LIST (one per page), or a streaming list (a WATCH with
// sendInitialEvents), whether it forwarded it or not. apiserver_request_total
// counts the latter as WATCH.
func (p *Proxy) Lists(group, resource string) []time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.lists[schema.GroupResource{Group: group, Resource: resource}])
}

// Protocols returns how many requests the proxy has seen per protocol of its
// client ("HTTP/1.1"...): the proxy serves HTTP/1.1 only, and answers any
// other with 505 HTTP Version Not Supported.
func (p *Proxy) Protocols() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.protocols)
}

// OpenWatches returns how many watches (streaming lists included) of resource
// (plural) of group the proxy is forwarding or holding right now.
func (p *Proxy) OpenWatches(group, resource string) int {
	gr := schema.GroupResource{Group: group, Resource: resource}
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for s := range p.streams {
		if s.resource == gr && s.verb == "watch" {
			n++
		}
	}
	return n
}

// OpenStreams returns how many requests of resource (plural) of group the
// proxy is forwarding right now: mostly watches.
func (p *Proxy) OpenStreams(group, resource string) int {
	gr := schema.GroupResource{Group: group, Resource: resource}
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for s := range p.streams {
		if s.resource == gr {
			n++
		}
	}
	return n
}
