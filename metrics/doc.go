// Package metrics exports a syncer's per-type activity as Prometheus metrics.
//
// Observer implements syncer.Observer. It registers its metrics on a registry the
// caller chooses, never on the global default one, so that a program embedding
// kubesync decides what it exposes. All metrics carry the label "type", the
// resource type's name ("pods", "networkpolicies.crd.projectcalico.org"):
//
//	kubesync_keys                             gauge    keys the type holds now (a dropped object: none)
//	kubesync_lists_total{reason}              counter  lists started; reason "initial"
//	                                                   is the first list, any other
//	                                                   reason a relist
//	kubesync_watch_restarts_total             counter  watches re-opened from the
//	                                                   last revision
//	kubesync_last_event_timestamp_seconds     gauge    unix time of the last event;
//	                                                   its age is time() - it
//	kubesync_type_status{status}              gauge    1 for the type's current
//	                                                   status, 0 for the others
//	kubesync_conversion_failures_total        counter  objects that failed conversion
//	kubesync_sync_failure{failure}            gauge    1 for the type's current failure
//	                                                   ("forbidden", "unauthorized",
//	                                                   "missing", "unreachable"), 0
//	                                                   for the others; all 0 once it
//	                                                   recovers
//	kubesync_sync_failures_total{failure}     counter  failure episodes
//	kubesync_confirmed_revision               gauge    the last revision the type's
//	                                                   stream confirmed (an event or
//	                                                   bookmark after its list, a
//	                                                   list's end), as client-go's
//	                                                   store revision
//	kubesync_confirmed_timestamp_seconds      gauge    unix time of that confirmation
//	kubesync_confirmed_age_seconds            gauge    seconds since, as of the scrape:
//	                                                   alert on it (a quiet type is
//	                                                   confirmed by a bookmark about
//	                                                   once a minute)
//
// RegisterRuntime adds the Go runtime and process collectors to a registry.
package metrics
