// Package informers holds the fv specs of kubesync's informer (package informer)
// and controller-runtime cache (module crcache) against a real apiserver:
// client-go's informer specs that matter to users, ported, and a
// controller-runtime reconciler run on the default cache and on kubesync's.
package informers
