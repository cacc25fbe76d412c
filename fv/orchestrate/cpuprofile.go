package orchestrate

import (
	"os"
	"runtime/pprof"
)

// CPUProfile is a CPU profile of this process under way. Stop on nil does
// nothing, so that an unprofiled run needs no test.
type CPUProfile struct{ f *os.File }

// StartCPUProfile profiles this process's CPU to path, or not at all when path
// is "" (it returns nil then).
func StartCPUProfile(path string) (*CPUProfile, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, err
	}
	return &CPUProfile{f: f}, nil
}

// Stop ends the profile and closes its file.
func (p *CPUProfile) Stop() error {
	if p == nil {
		return nil
	}
	pprof.StopCPUProfile()
	return p.f.Close()
}
