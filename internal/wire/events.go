package wire

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// Event is one watch event as its Source read it, once: a change or a
// deletion (Value), a bookmark (RV, and whether it ends a streamed list's
// initial events), or the server's error (Err).
type Event struct {
	Type watch.EventType
	// Value is a change's object (Source.Convert), or a deletion's identity.
	Value Value
	// RV and InitialEventsEnd are a bookmark's.
	RV               string
	InitialEventsEnd bool
	// Err is an Error event's Status, as the error client-go makes of it.
	Err error
}

// Event reads e: a bookmark's revision, a change's value or a deletion's
// identity, counting the objects the fallback client decoded. Nothing is read
// of a raw object after Event, whose frame goes back to its stream unless its
// value keeps it undecoded (Value.Later). An error is a bookmark that cannot
// be read; an event of another type is returned as it came, without a value.
func (s *Source) Event(e watch.Event) (Event, error) {
	ev := Event{Type: e.Type}
	switch e.Type {
	case watch.Error:
		ev.Err = apierrors.FromObject(e.Object)
	case watch.Bookmark:
		rv, end, err := Bookmark(e.Object)
		Release(e.Object)
		if err != nil {
			return Event{}, fmt.Errorf("%s: %w", s.Name, err)
		}
		ev.RV, ev.InitialEventsEnd = rv, end
	case watch.Added, watch.Modified, watch.Deleted:
		if _, raw := e.Object.(*Object); !raw {
			s.decodes.Add(1) // the client decoded it
		}
		if e.Type == watch.Deleted {
			ev.Value = s.Identify(e.Object)
			Release(e.Object)
		} else {
			ev.Value = s.Convert(e.Object)
		}
	}
	return ev, nil
}

// Items reads one list page with opts, each request under bound, and makes
// its objects Values; it counts the objects decoded to read it. It returns
// the page's revision and continue token.
func (s *Source) Items(ctx context.Context, opts metav1.ListOptions, bound Bound) ([]Value, ListMeta, error) {
	items, err := s.Page(ctx, opts, bound)
	if err != nil {
		return nil, ListMeta{}, err
	}
	s.decodes.Add(int64(items.Decoded))
	vals := make([]Value, len(items.Objects))
	for i, item := range items.Objects {
		vals[i] = s.Convert(item)
	}
	return vals, items.Meta, nil
}
