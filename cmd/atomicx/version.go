package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
)

// version is the release of atomicx, or "devel" for a build from a
// checkout; the module version recorded by go install wins when there is one.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// binaryHash returns a hash of the running binary: two atomicx builds
// from different sources must not share build cache entries, even when
// they call themselves by the same version.
var binaryHash = sync.OnceValues(func() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("locating the atomicx binary: %w", err)
	}
	f, err := os.Open(exe)
	if err != nil {
		return "", fmt.Errorf("hashing the atomicx binary: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hashing the atomicx binary: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
})

// identity is what -V=full appends for the build cache: version and binary.
func identity() (string, error) {
	h, err := binaryHash()
	if err != nil {
		return "", err
	}
	return version() + "+" + h, nil
}

func versionCmd(stdout io.Writer) int {
	h, err := binaryHash()
	if err != nil {
		h = "unknown"
	}
	fmt.Fprintf(stdout, "atomicx %s (binary %s, built with %s %s/%s)\n", version(), h, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return 0
}
