package wire

import (
	"net/http"

	"k8s.io/client-go/rest"
)

// CompressionConfig returns a copy of cfg whose clients accept gzip-compressed
// responses if on (NewClients's clients un-gzip them with GzipDecoding), and not if off
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
	if asked, ok := askEncoding(r, "identity"); ok {
		r = asked
	}
	return t.Next.RoundTrip(r)
}

// askEncoding returns a copy of r that asks for encoding, and false for a request
// that names its own Accept-Encoding, which goes as it is; the caller's r is not
// changed.
func askEncoding(r *http.Request, encoding string) (*http.Request, bool) {
	if r.Header.Get("Accept-Encoding") != "" {
		return r, false
	}
	r = r.Clone(r.Context())
	r.Header.Set("Accept-Encoding", encoding)
	return r, true
}
