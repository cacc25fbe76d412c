// Package wire is how bytes from the apiserver become objects and metadata: the
// lister/watcher of each resources.Type (ListerWatcher, over the Clients, whose
// transport asks for gzip or not: CompressionConfig), and its raw path
// (RawSource), which reads list pages and watch streams as the protobuf messages
// or CBOR and JSON documents the apiserver sent, each object's metadata first
// (Object), and decodes a body only when asked: eagerly (Object.DecodeCounted; a
// body that does not decode is its metadata, Object.Failure) or as a lazy value
// (Object.Lazy, LazyDecoder). Reader reads a type's list pages as objects with
// their ListMeta, and its watches, raw while the raw path is on and through the
// fallback client once it is off.
//
// Source is a type's Reader that also decides how each object becomes a Value:
// keys only, left undecoded while its Holder knows it at its revision
// (Value.Later), lazy, or decoded and converted. It reads each watch event once
// (Source.Event) and each list page (Source.Items), and runs a metadata-first
// relist's list and GETs (MetaRelist); its caller decides when to read what, and
// what an answer means. A metadata-only list is read page by page (MetaSource,
// MetaPages), and a changed object by itself (GetRaw). Package wire/meta reads
// the framing, envelopes and metadata.
package wire
