// Package demo changes the sample objects of a local control plane at a steady
// rate, so that `kubesync watch --local --demo-changes RATE` shows updates
// arriving. It is only ever given the client of a cluster the command started.
package demo
