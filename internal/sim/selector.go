package sim

import (
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

// Selector is a type's label and field selectors, parsed as the apiserver
// parses them. The label selector sees the label "app"; the field selector
// sees metadata.name, metadata.namespace and status.phase.
type Selector struct {
	label labels.Selector
	field fields.Selector
}

// Everything selects every object.
var Everything = Selector{label: labels.Everything(), field: fields.Everything()}

// ParseSelector parses a label and a field selector ("" selects everything).
func ParseSelector(label, field string) (Selector, error) {
	l, err := labels.Parse(label)
	if err != nil {
		return Selector{}, err
	}
	f, err := fields.ParseSelector(field)
	if err != nil {
		return Selector{}, err
	}
	return Selector{label: l, field: f}, nil
}

// Matches reports whether the selectors select o.
func (s Selector) Matches(o Object) bool {
	if s.label == nil {
		return true
	}
	return (s.label.Empty() || s.label.Matches(objectLabels{&o})) && (s.field.Empty() || s.field.Matches(objectFields{&o}))
}

// objectLabels and objectFields are an object's labels and fields as the
// selectors read them, without a map.
type objectLabels struct{ o *Object }

func (l objectLabels) Has(k string) bool { return k == "app" && l.o.App != "" }
func (l objectLabels) Get(k string) string {
	if k == "app" {
		return l.o.App
	}
	return ""
}
func (l objectLabels) Lookup(k string) (string, bool) { return l.Get(k), l.Has(k) }

type objectFields struct{ o *Object }

func (f objectFields) Has(k string) bool {
	return k == "metadata.name" || k == "metadata.namespace" || k == "status.phase"
}
func (f objectFields) Get(k string) string {
	switch k {
	case "metadata.name":
		return f.o.Name
	case "metadata.namespace":
		return f.o.Namespace
	case "status.phase":
		return f.o.Phase
	}
	return ""
}
