// Package output prints what a syncer reports, for the kubesync command.
//
// JSON prints one JSON object per line (see Record for the schema): one per
// update, one per status change, one per type that cannot be synced and one per
// object that failed conversion. Table prints a human summary: a table of the
// types when the syncer is first in sync, then one row per later update.
//
// Both implement syncer.Callbacks, syncer.ParseFailureHandler and
// syncer.SyncFailureHandler, buffer their output and flush it at the end of each
// call. Guard wraps the destination to learn of the first write error.
package output
