package controlplane

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// ErrUnknownFeatureGate is wrapped by Start's error when a feature gate is turned
// on that the kube-apiserver does not know: an older minor than the one the
// caller was written for. FeatureGates tells beforehand.
var ErrUnknownFeatureGate = errors.New("unknown feature gate")

// featureGatesFlag is the kube-apiserver flag of feature gates.
const featureGatesFlag = "feature-gates"

// gateLine is one gate of kube-apiserver --help, e.g. "kube:WatchList=true|false
// (BETA - default=true)"; the "kube:" prefix came with 1.31's versioned gates.
var gateLine = regexp.MustCompile(`^\s+(?:kube:)?([A-Za-z0-9]+)=true\|false\s+\((?:[A-Z]+ - )?default=(true|false)\)`)

// FeatureGates returns the feature gates the kube-apiserver in dir knows, as its
// --help lists them, each with its default.
func FeatureGates(ctx context.Context, dir string) (map[string]bool, error) {
	out, err := apiServerOutput(ctx, dir, "--help")
	if err != nil {
		return nil, err
	}
	gates := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if m := gateLine.FindStringSubmatch(line); m != nil {
			gates[m[1]] = m[2] == "true"
		}
	}
	if len(gates) == 0 {
		return nil, fmt.Errorf("kube-apiserver in %s lists no feature gates in its --help", dir)
	}
	return gates, nil
}

// APIServerVersion returns the version the kube-apiserver in dir reports, e.g.
// "v1.33.13".
func APIServerVersion(ctx context.Context, dir string) (string, error) {
	out, err := apiServerOutput(ctx, dir, "--version")
	if err != nil {
		return "", err
	}
	return strings.TrimPrefix(strings.TrimSpace(string(out)), "Kubernetes "), nil
}

func apiServerOutput(ctx context.Context, dir, arg string) ([]byte, error) {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, filepath.Join(dir, "kube-apiserver"), arg)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("kube-apiserver %s: %w: %s", arg, err, lastLines(out.String(), 5))
	}
	return out.Bytes(), nil
}

// fitFeatureGates adapts the options' feature gates to the kube-apiserver in dir.
// A gate it does not know is left out where it is turned off: the binaries are
// never newer than the pinned one the callers are written for, so such a gate
// names a feature this minor does not have, which is what off asks for. One
// turned on fails with ErrUnknownFeatureGate. Without feature gates it runs
// nothing.
func (o *options) fitFeatureGates(ctx context.Context, dir string) error {
	if !o.hasFlag(featureGatesFlag) {
		return nil
	}
	known, err := FeatureGates(ctx, dir)
	if err != nil {
		return err
	}
	var flags []flag
	for _, f := range o.flags {
		if f.name == featureGatesFlag {
			if f.values, err = knownGates(f.values, known); err != nil {
				version, _ := APIServerVersion(ctx, dir)
				return fmt.Errorf("kube-apiserver %s in %s: %w", version, dir, err)
			}
			if len(f.values) == 0 {
				continue
			}
		}
		flags = append(flags, f)
	}
	o.flags = flags
	return nil
}

func (o *options) hasFlag(name string) bool {
	for _, f := range o.flags {
		if f.name == name {
			return true
		}
	}
	return false
}

// knownGates keeps, of values ("A=true,B=false" each), the gates in known; it
// fails on one turned on that is not.
func knownGates(values []string, known map[string]bool) ([]string, error) {
	var kept []string
	for _, v := range values {
		var gates []string
		for _, g := range strings.Split(v, ",") {
			name, val, _ := strings.Cut(strings.TrimSpace(g), "=")
			if _, ok := known[strings.TrimPrefix(name, "kube:")]; ok {
				gates = append(gates, g)
				continue
			}
			if on, err := strconv.ParseBool(val); err != nil || on {
				return nil, fmt.Errorf("%w %s (given %q)", ErrUnknownFeatureGate, name, g)
			}
		}
		if len(gates) > 0 {
			kept = append(kept, strings.Join(gates, ","))
		}
	}
	return kept, nil
}
