// Package broker is an example to copy: one syncer feeds a snapshot.Broker, and
// three subscribers read from it, one of them slow and one joining late. The slow
// one holds back neither the syncer nor the others, and its pending changes
// coalesce; the late one starts from a snapshot. See the package's Example.
package broker
