//go:build !amd64

package engine

import "unsafe"

// prefetch is the hint of prefetch_amd64.go; elsewhere it does nothing.
func prefetch(addr unsafe.Pointer) {}
