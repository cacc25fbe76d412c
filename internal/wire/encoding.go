package wire

import (
	"net/http"

	"k8s.io/client-go/rest"
)

// CompressionConfig returns a copy of cfg whose clients accept gzip-compressed
// responses if on (NewClients's un-gzip them with GzipDecoding), and not if off
// (rest.Config.DisableCompression); off also asks for the identity encoding
// outright (IdentityEncoding), which client-go's shared transport for a
// plain-HTTP host would otherwise not do. cfg is not changed.
func CompressionConfig(cfg *rest.Config, on bool) *rest.Config {
	out := rest.CopyConfig(cfg)
	out.DisableCompression = !on
	if !on {
		out.Wrap(func(rt http.RoundTripper) http.RoundTripper { return IdentityEncoding{rt} })
	}
	return out
}

// IdentityEncoding asks for uncompressed responses: with Accept-Encoding set,
// Go's transport neither asks for gzip itself nor un-gzips. A request that sets
// its own Accept-Encoding goes as it is.
type IdentityEncoding struct{ Next http.RoundTripper }

// RoundTrip sends r through Next, asking for the identity encoding.
func (t IdentityEncoding) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Header.Get("Accept-Encoding") != "" {
		return t.Next.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	r.Header.Set("Accept-Encoding", "identity")
	return t.Next.RoundTrip(r)
}
