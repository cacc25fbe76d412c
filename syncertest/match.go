package syncertest

import (
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// matcher is what a request selects: a namespace (from its path), a label
// selector and a field selector, parsed and evaluated with apimachinery's labels
// and fields packages, as the apiserver does.
type matcher struct {
	namespace string
	labels    labels.Selector
	fields    fields.Selector
}

// newMatcher parses o's selectors; a selector that does not parse is a 400, as
// the apiserver answers it.
func newMatcher(namespace string, o metav1.ListOptions) (matcher, error) {
	m := matcher{namespace: namespace, labels: labels.Everything(), fields: fields.Everything()}
	var err error
	if o.LabelSelector != "" {
		if m.labels, err = labels.Parse(o.LabelSelector); err != nil {
			return m, apierrors.NewBadRequest(fmt.Sprintf("unable to parse requirement: %v", err))
		}
	}
	if o.FieldSelector != "" {
		if m.fields, err = fields.ParseSelector(o.FieldSelector); err != nil {
			return m, apierrors.NewBadRequest(fmt.Sprintf("invalid field selector: %v", err))
		}
	}
	return m, nil
}

func (m matcher) matches(obj runtime.Object) bool {
	a, err := meta.Accessor(obj)
	if err != nil {
		return true
	}
	if m.namespace != "" && a.GetNamespace() != m.namespace {
		return false
	}
	if !m.labels.Matches(labels.Set(a.GetLabels())) {
		return false
	}
	return m.fields.Empty() || m.fields.Matches(fieldsOf(obj, a, m.fields))
}

// fieldsOf reads the fields sel asks about: metadata.name and
// metadata.namespace from the metadata, any other path (spec.nodeName,
// status.phase) from the object's content; a field that is absent is "".
func fieldsOf(obj runtime.Object, a metav1.Object, sel fields.Selector) fields.Set {
	set := fields.Set{}
	var content map[string]any
	for _, req := range sel.Requirements() {
		switch req.Field {
		case "metadata.name":
			set[req.Field] = a.GetName()
		case "metadata.namespace":
			set[req.Field] = a.GetNamespace()
		default:
			if content == nil {
				content = contentOf(obj)
			}
			v, found, _ := unstructured.NestedFieldNoCopy(content, strings.Split(req.Field, ".")...)
			if found && v != nil {
				set[req.Field] = fmt.Sprint(v)
			}
		}
	}
	return set
}

func contentOf(obj runtime.Object) map[string]any {
	if u, ok := obj.(runtime.Unstructured); ok {
		return u.UnstructuredContent()
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil
	}
	return content
}

// event is what a watch with this matcher sees of c, as the apiserver's watch
// cache filters: an object that comes to match is Added, one that stops matching
// is Deleted (its previous value, at the change's revision), and a change that
// matches neither before nor after is not sent.
func (m matcher) event(c change) (watch.Event, bool) {
	if c.typ == watch.Deleted {
		return watch.Event{Type: watch.Deleted, Object: c.obj.DeepCopyObject()}, m.matches(c.obj)
	}
	now := m.matches(c.obj)
	was := c.prev != nil && m.matches(c.prev)
	switch {
	case now && was:
		return watch.Event{Type: watch.Modified, Object: c.obj.DeepCopyObject()}, true
	case now:
		return watch.Event{Type: watch.Added, Object: c.obj.DeepCopyObject()}, true
	case was:
		return watch.Event{Type: watch.Deleted, Object: withRevision(c.prev, c.rev)}, true
	}
	return watch.Event{}, false
}
