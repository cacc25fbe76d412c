package bench

// apiserverProfileSeconds is how long a relist's apiserver CPU profile runs
// (orchestrate.APIServerProfile): longer than the slowest relist of the
// workloads (about 8 s), so that the profile holds all of it; the rest of the
// window is the apiserver idling.
const apiserverProfileSeconds = 15
