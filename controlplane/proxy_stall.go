package controlplane

import (
	"context"
	"io"
	"net/http"

	"golang.org/x/time/rate"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// stalls holds the stalls in force, guarded by Proxy.mu. Each is a channel
// closed when the stall ends.
type stalls struct {
	all        chan struct{} // non-nil while everything is stalled
	byResource map[schema.GroupResource]chan struct{}
}

func newStalls() stalls {
	return stalls{byResource: map[schema.GroupResource]chan struct{}{}}
}

// gate returns the channel to wait on before forwarding a byte of resource,
// or nil when it may flow.
func (s *stalls) gate(gr schema.GroupResource) <-chan struct{} {
	if s.all != nil {
		return s.all
	}
	return s.byResource[gr] // nil for a non-resource request or an unstalled one
}

func (s *stalls) endAll() {
	if s.all != nil {
		close(s.all)
		s.all = nil
	}
	for gr, ch := range s.byResource {
		close(ch)
		delete(s.byResource, gr)
	}
}

// Stall makes every connection of resource (plural) of group ("" for the core
// group) silent, in both directions, until Unstall: the requests and watches
// already open stay open but receive nothing more, however much the apiserver
// sends, and new requests are accepted but not forwarded. Neither side sees an
// error, as behind a stuck middlebox; a client notices only through its own
// deadlines. Bytes held back flow again once the stall ends, on connections
// their client has not given up.
func (p *Proxy) Stall(group, resource string) {
	gr := schema.GroupResource{Group: group, Resource: resource}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.stalls.byResource[gr]; !ok && !p.closed {
		p.stalls.byResource[gr] = make(chan struct{})
	}
}

// Unstall ends a Stall of resource (plural) of group.
func (p *Proxy) Unstall(group, resource string) {
	gr := schema.GroupResource{Group: group, Resource: resource}
	p.mu.Lock()
	defer p.mu.Unlock()
	if ch, ok := p.stalls.byResource[gr]; ok {
		close(ch)
		delete(p.stalls.byResource, gr)
	}
}

// StallAll, turned on, stalls every connection through the proxy (see Stall),
// discovery and other non-resource requests included; turned off, it ends that
// stall (a Stall of one resource stays in force).
func (p *Proxy) StallAll(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case on && p.stalls.all == nil && !p.closed:
		p.stalls.all = make(chan struct{})
	case !on && p.stalls.all != nil:
		close(p.stalls.all)
		p.stalls.all = nil
	}
}

// StallOpen makes the connections of resource (plural) of group that are open
// now silent for good, in both directions, while new ones go through: a
// half-open connection, which only its client's own deadline ends. It returns
// how many it stalled.
func (p *Proxy) StallOpen(group, resource string) int {
	gr := schema.GroupResource{Group: group, Resource: resource}
	return p.stallOpen(func(s *stream) bool { return s.resource == gr })
}

// StallOpenAll is StallOpen for every connection open now.
func (p *Proxy) StallOpenAll() int {
	return p.stallOpen(func(*stream) bool { return true })
}

func (p *Proxy) stallOpen(match func(*stream) bool) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for s := range p.streams {
		if match(s) && s.stalled == nil {
			// Never closed: the stream's context ends the wait.
			s.stalled = make(chan struct{})
			n++
		}
	}
	return n
}

// waitUnstalled returns once no stall holds stream s, or with the error of
// s's context.
func (p *Proxy) waitUnstalled(ctx context.Context, s *stream) error {
	for {
		p.mu.Lock()
		gate := p.stalls.gate(s.resource)
		if gate == nil && s.stalled != nil {
			gate = s.stalled
		}
		p.mu.Unlock()
		if gate == nil {
			return nil
		}
		select {
		case <-gate:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// Throttle caps the bandwidth of the responses of resource (plural) of group
// to bytesPerSecond, shared by all its connections, open ones included; 0
// lifts the cap. A slow link: watches lag and long lists take their time.
func (p *Proxy) Throttle(group, resource string, bytesPerSecond int) {
	gr := schema.GroupResource{Group: group, Resource: resource}
	p.mu.Lock()
	defer p.mu.Unlock()
	if bytesPerSecond <= 0 {
		delete(p.limits, gr)
		return
	}
	// Bursts of a tenth of a second keep the flow smooth.
	p.limits[gr] = rate.NewLimiter(rate.Limit(bytesPerSecond), max(1, bytesPerSecond/10))
}

func (p *Proxy) limiter(gr schema.GroupResource) *rate.Limiter {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.limits[gr]
}

// gatedWriter is the client's side of one proxied request: nothing goes
// through while a stall holds its resource, and no faster than its Throttle.
type gatedWriter struct {
	http.ResponseWriter
	p      *Proxy
	ctx    context.Context
	stream *stream
}

func (w *gatedWriter) WriteHeader(code int) {
	if w.p.waitUnstalled(w.ctx, w.stream) != nil {
		return // the client is gone or cut; the next Write fails
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *gatedWriter) Write(b []byte) (int, error) {
	written := 0
	for len(b) > 0 {
		if err := w.p.waitUnstalled(w.ctx, w.stream); err != nil {
			return written, err
		}
		chunk := len(b)
		if lim := w.p.limiter(w.stream.resource); lim != nil {
			chunk = min(chunk, lim.Burst())
			if err := lim.WaitN(w.ctx, chunk); err != nil {
				return written, err
			}
		}
		n, err := w.ResponseWriter.Write(b[:chunk])
		written += n
		if err != nil {
			return written, err
		}
		b = b[chunk:]
		if len(b) > 0 {
			// Let the throttled bytes reach the client as they go.
			_ = http.NewResponseController(w.ResponseWriter).Flush()
		}
	}
	return written, nil
}

// FlushError is what http.ResponseController (and so the reverse proxy) calls.
func (w *gatedWriter) FlushError() error {
	if err := w.p.waitUnstalled(w.ctx, w.stream); err != nil {
		return err
	}
	return http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *gatedWriter) Flush() { _ = w.FlushError() }

// Unwrap gives http.ResponseController the connection's other controls.
func (w *gatedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// gatedBody is a request body that a stall holds back.
type gatedBody struct {
	io.ReadCloser
	p      *Proxy
	ctx    context.Context
	stream *stream
}

func (b *gatedBody) Read(buf []byte) (int, error) {
	if err := b.p.waitUnstalled(b.ctx, b.stream); err != nil {
		return 0, err
	}
	return b.ReadCloser.Read(buf)
}
