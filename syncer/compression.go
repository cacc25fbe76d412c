package syncer

import (
	"k8s.io/client-go/rest"

	"github.com/kubesync/kubesync/internal/wire"
)

// WithCompression says whether the syncer's clients accept gzip-compressed
// responses: on, the apiserver gzips every large list and watch stream it sends
// them; off, it sends them as they are. It sets rest.Config.DisableCompression
// for the syncer's clients only (the caller's rest.Config is not changed), and
// off also asks for the identity encoding outright, which client-go's shared
// transport for a plain-HTTP host would otherwise not do.
//
// Gzip trades CPU for bytes, but for the objects of a cluster (pods, custom
// resources: names, labels and specs that repeat) it pays on both sides even on
// loopback: 10,000 pods that compress 15-fold cost a syncer about half as much
// CPU with gzip as without, and the apiserver too, because moving 15 times the
// bytes through HTTP and TLS costs more than gzip level 1. Turn it off for types
// whose objects do not compress (random or encrypted payloads) on a fast link,
// where un-gzipping is then pure cost; keep it on otherwise, and always on a slow
// or metered link.
//
// On, the syncer un-gzips with klauspost/compress's decoder, about 1.3 times as
// fast as the standard library's, which client-go's transport uses.
//
// Default: on, as in client-go, unless the caller's rest.Config sets
// DisableCompression (the syncer then leaves it as it is).
func WithCompression(on bool) Option { return func(c *config) { c.compression = &on } }

// restConfigFor returns the rest.Config the syncer's clients are built from:
// restCfg itself, or a copy as WithCompression set.
func (c *config) restConfigFor(restCfg *rest.Config) *rest.Config {
	if c.compression == nil || restCfg == nil {
		return restCfg
	}
	return wire.CompressionConfig(restCfg, *c.compression)
}
