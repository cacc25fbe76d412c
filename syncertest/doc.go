// Package syncertest holds test doubles for code built on package syncer: a
// scriptable, in-memory stand-in for one resource type's list and watch endpoints.
// A Resource records every list, watch and stop call, serves paged lists, and lets a
// test push watch events, end streams and inject errors, so an agent's callbacks can
// be unit-tested without an apiserver. The syncer's own unit specs run on it;
// behaviour against a real apiserver is proven in kubesync's fv specs.
package syncertest
