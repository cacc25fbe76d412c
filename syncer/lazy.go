package syncer

// WithLazyValues hands on values undecoded where the raw path allows it: every
// object read on the raw path and converted with the default conversion arrives
// in KVPair.Value as a *resources.Raw instead of the decoded object: for a
// built-in type its protobuf bytes, managed fields stripped; for a custom type a
// copy of its CBOR or JSON document, which Object decodes into the
// *unstructured.Unstructured the eager path hands on, managed fields stripped.
// The syncer then decodes nothing in full for such a type, and a consumer decodes
// what it reads (Raw.Object); snapshot.Store keeps the bytes and decodes on Get.
//
// Objects that arrive decoded (a type with its own conversion; a type whose raw
// path fell back to the typed or dynamic client; objects a checkpoint kept
// decoded) keep decoded values, and KeysOnly types keep nil ones: a consumer of
// lazy values handles both, as snapshot.Store does. With WithCheckpoint, a
// checkpoint that is a LazyRecorder (checkpoint.Store is) keeps each lazy value's
// bytes, and a warm start hands them on as lazy values again, decoding nothing;
// for any other checkpoint each changed object is decoded once, for Record.
//
// Default: off, values are decoded, because a consumer may type-assert
// KVPair.Value to the typed object (*corev1.Pod, ...), which a Raw is not.
func WithLazyValues() Option { return func(c *config) { c.lazyValues = true } }
