//go:build !amd64 && !arm64

package rt

import "unsafe"

func currentG() unsafe.Pointer { return nil }

const haveCurrentG = false
