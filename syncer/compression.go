package syncer

import (
	"net/http"

	"k8s.io/client-go/rest"
)

// WithCompression says whether the syncer's clients accept gzip-compressed
// responses: on, the apiserver gzips every large list and watch stream it sends
// them; off, it sends them as they are. It sets rest.Config.DisableCompression
// for the syncer's clients only (the caller's rest.Config is not changed), and
// off also asks for the identity encoding outright, which client-go's shared
// transport for a plain-HTTP host would otherwise not do.
//
// Gzip trades CPU on both sides for bytes on the wire: for a list of pods it
// saves about 90% of the bytes, for about 3 ms of client CPU (un-gzipping) and 7
// ms of apiserver CPU (compressing) per MB of protobuf; un-gzipping is a large
// part of the CPU of a syncer that decodes little (WithLazyValues). Turn it
// off where bandwidth is cheap and CPU is not: an agent on the apiserver's host
// or in the same data centre (a node agent on every node of a cluster, whose
// cold starts all land on the apiserver at once). Keep it on where the bytes
// cost more than the CPU: a slow, metered or cross-region link to the apiserver.
//
// Default: on, as client-go's default is, unless the caller's rest.Config sets
// DisableCompression.
func WithCompression(on bool) Option { return func(c *config) { c.compression = &on } }

// restConfigFor returns the rest.Config the syncer's clients are built from:
// restCfg itself, or a copy as WithCompression set.
func (c *config) restConfigFor(restCfg *rest.Config) *rest.Config {
	if c.compression == nil || restCfg == nil {
		return restCfg
	}
	out := rest.CopyConfig(restCfg)
	out.DisableCompression = !*c.compression
	if !*c.compression {
		out.Wrap(func(rt http.RoundTripper) http.RoundTripper { return identityEncoding{rt} })
	}
	return out
}

// identityEncoding asks for uncompressed responses: with Accept-Encoding set,
// Go's transport neither asks for gzip itself nor un-gzips.
type identityEncoding struct{ next http.RoundTripper }

func (t identityEncoding) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Header.Get("Accept-Encoding") != "" {
		return t.next.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	r.Header.Set("Accept-Encoding", "identity")
	return t.next.RoundTrip(r)
}
