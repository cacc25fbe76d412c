// Package consistency checks a syncer against the apiserver it watches: Mirror is a
// consumer that applies the updates it receives, flagging any that contradict what
// it already holds (a New for a known key, an Updated or Deleted for an unknown
// one), and Check compares the mirror, key by key and revision by revision, with a
// fresh list from the apiserver.
package consistency
