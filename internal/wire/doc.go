// Package wire is how bytes from the apiserver become objects and metadata: the
// lister/watcher of each resources.Type (ListerWatcher, over the Clients, whose
// transport asks for gzip or not: CompressionConfig), and its raw path
// (RawSource), which reads list pages and watch streams as the protobuf messages
// or CBOR and JSON documents the apiserver sent, each object's metadata first
// (Object), and decodes a body only when asked: eagerly (Object.DecodeCounted; a
// body that does not decode is its metadata, Object.Failure) or as a lazy value
// (Object.Lazy, LazyDecoder). Reader reads a type's list pages as objects with
// their ListMeta, and its watches, raw while the raw path is on and through the
// fallback client once it is off. A metadata-only list is read page by page
// (MetaSource, MetaPages), and a changed object by itself (GetRaw). Package
// wire/meta reads the framing, envelopes and metadata.
package wire
