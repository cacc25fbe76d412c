// Package rawmeta reads what kubesync needs to know about an API object before it
// decides to decode it: the identity and revision in its ObjectMeta, read straight
// from the protobuf bytes of a list page or a watch frame. It unwraps the
// Kubernetes protobuf envelope (runtime.Unknown) and walks messages field by field
// with protowire, skipping everything it does not need; it never decodes a body.
package rawmeta
