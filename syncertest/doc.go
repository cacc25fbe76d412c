// Package syncertest holds test doubles for code built on package syncer, so that
// an agent's callbacks can be unit-tested without an apiserver:
//
//   - API, a fake apiserver for a set of resources.Types. Its Option makes a
//     syncer list and watch it: syncer.New(nil, types, callbacks, api.Option()).
//     Put and Delete change whole objects (a *corev1.Pod, an unstructured custom
//     object), as watch events with new revisions; Refuse and Allow make a type
//     fail with an apiserver's error (Forbidden, Unauthorized, NotFound, Expired,
//     InternalError) and recover; Down and Up take the whole API away and back (a
//     refused connection, or a 503). It acts as an apiserver does: history, 410
//     after Compact, bookmarks, timeoutSeconds, label and field selectors. Add
//     serves more types later; Serving, given to a syncer in place of Option,
//     serves whatever types it is made with, so an agent's constructor keeps its
//     types.
//   - Resource, the fake list and watch endpoints of one type, which API uses and
//     Resource(t) returns: it records every list, watch and stop call (with its
//     selectors; a warm start's read of the server's revision as a "fence", so
//     that Lists counts relists alone), serves paged and streaming lists, and
//     lets a test push events, end watches and inject errors per call. Built alone it is scripted: its
//     ResourceOptions turn on the apiserver's behaviour one by one.
//   - Server, the API over HTTP on a loopback port, for code that builds its own
//     clients from a rest.Config (Server.Config): protobuf for built-in types,
//     JSON or CBOR for custom ones, chosen by the Accept header as
//     kube-apiserver chooses.
//   - Recorder, a syncer.Callbacks that keeps every call in order (OnResumed
//     and the other optional callbacks included), and the state (key → KVPair)
//     they add up to, with a way to wait for a condition.
//
// The syncer's own unit specs run on these doubles; behaviour against a real
// apiserver is proven in kubesync's fv specs.
package syncertest
