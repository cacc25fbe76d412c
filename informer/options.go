package informer

import (
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"

	"github.com/sirupsen/logrus"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kubesync/kubesync/resources"
	"github.com/kubesync/kubesync/syncer"
)

// Option configures an Informer.
type Option func(*options)

type options struct {
	log               logrus.FieldLogger
	resync            time.Duration
	keepManagedFields bool
	gvk               schema.GroupVersionKind
	syncer            []syncer.Option
}

// WithResyncPeriod is the resync period of handlers added with AddEventHandler
// (client-go's defaultEventHandlerResyncPeriod). Default: none.
func WithResyncPeriod(d time.Duration) Option { return func(o *options) { o.resync = d } }

// WithLogger logs the syncer's activity to log. Default: nothing is logged.
func WithLogger(log logrus.FieldLogger) Option { return func(o *options) { o.log = log } }

// WithManagedFields keeps each object's managedFields. Default: they are
// dropped, as kubesync drops them everywhere (they are often half an object).
func WithManagedFields() Option { return func(o *options) { o.keepManagedFields = true } }

// WithGroupVersionKind names the objects' kind, for the syncer's type name and
// metrics, where the example object does not say it (a typed object outside
// client-go's scheme). Default: the example's kind, or client-go's scheme's,
// or the name of its Go type.
func WithGroupVersionKind(gvk schema.GroupVersionKind) Option {
	return func(o *options) { o.gvk = gvk }
}

// WithSyncerOptions passes options to the syncer underneath, e.g.
// syncer.WithObserver for metrics, or syncer.WithPageSize.
func WithSyncerOptions(opts ...syncer.Option) Option {
	return func(o *options) { o.syncer = append(o.syncer, opts...) }
}

func discardLogger() logrus.FieldLogger {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return l
}

// typeFor is the syncer type the informer reads through: named after the
// objects' kind; its ListerWatcher is the one New was given, so its resource
// is a name only.
func typeFor(example runtime.Object, o options) (resources.Type, error) {
	gvk := o.gvk
	if gvk.Empty() {
		gvk = example.GetObjectKind().GroupVersionKind()
	}
	if gvk.Empty() {
		if kinds, _, err := scheme.Scheme.ObjectKinds(example); err == nil && len(kinds) > 0 {
			gvk = kinds[0]
		}
	}
	if gvk.Kind == "" { // a name only: the Go type's
		gvk.Kind = reflect.TypeOf(example).Elem().Name()
	}
	if gvk.Kind == "" {
		return resources.Type{}, fmt.Errorf("informer: the kind of %T is unknown: use WithGroupVersionKind", example)
	}
	if gvk.Version == "" {
		gvk.Version = "v1"
	}
	gvr := schema.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: strings.ToLower(gvk.Kind)}
	return resources.Custom(gvr, gvk.Kind, true), nil
}
