package controlplane

import (
	"io"
	"strconv"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// Option configures a ControlPlane at Start.
type Option func(*options)

type options struct {
	assetsDir    string
	watchCache   bool
	crds         []*apiextensionsv1.CustomResourceDefinition
	flags        []flag
	out          io.Writer
	startTimeout time.Duration
	stopTimeout  time.Duration
}

type flag struct {
	name   string
	values []string
}

func defaultOptions() options {
	return options{
		watchCache:   true,
		startTimeout: 60 * time.Second,
		stopTimeout:  30 * time.Second,
	}
}

// WithWatchCache turns the apiserver's watch cache on (the default) or off
// (--watch-cache=false). With it off, every list and watch goes to etcd, so a
// watch that restarts from a compacted revision gets 410 Expired.
func WithWatchCache(enabled bool) Option {
	return func(o *options) { o.watchCache = enabled }
}

// WithCRDs installs crds once the control plane is up; Start returns only when
// they are established and served.
func WithCRDs(crds ...*apiextensionsv1.CustomResourceDefinition) Option {
	return func(o *options) { o.crds = append(o.crds, crds...) }
}

// WithAPIServerFlag sets a kube-apiserver flag (name without the leading
// dashes), replacing the control plane's default for it. Several values make the flag
// repeat.
func WithAPIServerFlag(name string, values ...string) Option {
	return func(o *options) { o.flags = append(o.flags, flag{name: name, values: values}) }
}

// WithAssetsDir uses the etcd and kube-apiserver binaries in dir instead of
// AssetsDir's choice.
func WithAssetsDir(dir string) Option {
	return func(o *options) { o.assetsDir = dir }
}

// WithOutput sends the stdout and stderr of etcd and kube-apiserver to w.
// By default they are discarded, but for the last lines that a ProcessError
// quotes.
func WithOutput(w io.Writer) Option {
	return func(o *options) { o.out = w }
}

// WithProcessTimeouts bounds how long each process may take to start and to
// stop (defaults: 60 s and 30 s). A process that does not stop in time is killed.
func WithProcessTimeouts(start, stop time.Duration) Option {
	return func(o *options) {
		if start > 0 {
			o.startTimeout = start
		}
		if stop > 0 {
			o.stopTimeout = stop
		}
	}
}

// apiServerFlags returns the flags the control plane sets, in order; later entries
// (the caller's) replace earlier ones of the same name.
func (o *options) apiServerFlags() []flag {
	flags := []flag{
		// On loopback the apiserver cannot advertise a routable address, and with
		// no other apiserver there is nothing to reconcile endpoints with.
		{"advertise-address", []string{"127.0.0.1"}},
		{"endpoint-reconciler-type", []string{"none"}},
		// Graceful shutdown in about 4 s instead of waiting for open watches up
		// to the request timeout: in-flight requests get a 429 with Retry-After.
		{"shutdown-send-retry-after", []string{"true"}},
		{"shutdown-delay-duration", []string{"0s"}},
		// Tests decide when etcd is compacted (see Compact): the apiserver's own
		// periodic compaction (every 5 min) would expire watches at random.
		{"etcd-compaction-interval", []string{"0"}},
		{"watch-cache", []string{strconv.FormatBool(o.watchCache)}},
	}
	return append(flags, o.flags...)
}
