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
	ls := labels.Set{}
	if o.App != "" {
		ls["app"] = o.App
	}
	return s.label.Matches(ls) &&
		s.field.Matches(fields.Set{"metadata.name": o.Name, "metadata.namespace": o.Namespace, "status.phase": o.Phase})
}
