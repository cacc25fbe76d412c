// Package wire is how bytes from the apiserver become objects and metadata: the
// lister/watcher of each resources.Type (ListerWatcher, over the Clients), and its
// raw path, which reads list pages and watch streams as the protobuf messages or
// CBOR and JSON documents the apiserver sent, each object's metadata first
// (Object), and decodes a body only when asked, eagerly or as a lazy value
// (LazyDecoder). Package wire/meta reads the framing, envelopes and metadata.
package wire
