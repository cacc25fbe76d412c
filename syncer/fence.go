package syncer

import "github.com/kubesync/kubesync/resources"

// FenceName is the name a warm start's fence asks for. A type resumed from a
// checkpoint (WithCheckpoint) first reads the server's current revision by a
// consistent read that returns no object, which it watches on to: a streaming
// list (a watch with sendInitialEvents, no resourceVersion) whose field selector
// is the type's own and metadata.name=FenceName, a name no object of any kind
// can have, so that its only event is the initial-events-end bookmark at that
// revision; or, when lists are paged (WithInitialList(Paged)) or streams fail, a
// list with the same selector and a limit of one. No object is read, and the
// type does not relist. syncertest records either as a call of verb "fence".
const FenceName = ".."

// fenceSelector is t's field selector narrowed to FenceName.
func fenceSelector(t resources.Type) string {
	if t.FieldSelector == "" {
		return "metadata.name=" + FenceName
	}
	return t.FieldSelector + ",metadata.name=" + FenceName
}
