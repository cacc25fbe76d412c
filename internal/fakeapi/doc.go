// Package fakeapi is a scriptable, in-memory stand-in for one resource type's list
// and watch endpoints. It records every list, watch and stop call, serves paged
// lists, and lets a test push watch events, end streams and inject errors. Unit
// tests of the syncer loop use it; behaviour against a real apiserver is proven in
// fv.
package fakeapi
