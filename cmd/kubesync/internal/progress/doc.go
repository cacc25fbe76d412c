// Package progress follows a syncer's types for the kubesync command: a Tracker
// (a syncer.Observer) keeps each type's object count and status, and a Console
// shares one stream, usually a terminal's stderr, between a live status line that
// it redraws and whole message lines that it prints above it.
package progress
