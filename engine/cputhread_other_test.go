//go:build !linux

package engine

import "time"

// threadCPU is the process's CPU time where the system has no clock per
// thread that getrusage reads (cputhread_linux_test.go).
func threadCPU() time.Duration { return cpuTime() }
