// Package informer is kubesync behind client-go's interface: Informer is a
// cache.SharedIndexInformer backed by one kubesync syncer type, so that code
// written for informers (event handlers, listers, controller-runtime's cache
// through its NewInformer option) works unchanged, with kubesync's list and
// watch underneath and a compact holding.
//
// # What is held, and what a read costs
//
// Each object is held as its encoding, not as a Go object: a typed object (a
// *corev1.Pod, a *metav1.PartialObjectMetadata) as its protobuf message, an
// *unstructured.Unstructured as JSON; managedFields are dropped (WithManagedFields
// keeps them). A Pod's protobuf is several times smaller than its Go object.
// Every read (GetByKey, Get, List, ByIndex, Index) decodes afresh what it returns,
// and nothing is cached: the caller owns each object it gets and may change it.
// BenchmarkGetByKey measures it: about 22 µs and 86 allocations for a pod of two
// containers, against 6 µs for client-go's lookup and the DeepCopy
// controller-runtime makes of it; a List decodes each object (12 ms for 1,000
// such pods). Handlers get objects decoded once per change and shared among
// them, as client-go shares its objects: a handler must not change them. Indexes
// are computed once per change from the decoded object and held as keys.
//
// # Semantics
//
// As client-go's processor: each handler has its own goroutine and unbounded
// queue and hears every change in order; Adds of the initial list carry
// isInInitialList true; Updates carry the object held before; a handler added
// after Run first gets every object held as an Add in the initial list; a
// registration's HasSynced is true once the informer has synced and the handler
// has been told the initial list; a resync period gives the handler an Update
// with the same object as old and new for every object held, every period
// (one second at least).
//
// Where kubesync differs from a reflector, the informer tells less, never
// something else: a relist (after a watch expired) tells only what changed, not
// an Update of every object, and a watch that merely ends is re-opened from its
// revision with no relist at all. An object that a relist finds gone is told as
// a cache.DeletedFinalStateUnknown with the last object held, as client-go
// tells it; an object deleted while watched is told with the last object held
// (client-go hands on the deletion event's object, of a newer resourceVersion).
// SetWatchErrorHandler hears the syncer's failure episodes (forbidden,
// unauthorized, not served, unreachable) once each, with a Reflector that only
// names the informer, not each failed request. GetController's Run does nothing: the informer runs
// itself.
package informer
