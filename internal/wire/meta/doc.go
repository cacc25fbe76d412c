// Package meta reads what kubesync needs to know about an API object before it
// decides to decode it: the identity and revision in its ObjectMeta, read straight
// from the bytes of a list page or a watch frame. For protobuf (built-in types) it
// unwraps the Kubernetes envelope (runtime.Unknown), reads the length-delimited
// watch event, and walks messages field by field with protowire; for the CBOR or
// JSON of custom types it decodes into a struct of those few fields (DocMeta,
// DocItems, DocEvents). Either way it skips everything it does not need and never
// decodes a body.
package meta
