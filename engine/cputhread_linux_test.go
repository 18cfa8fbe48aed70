package engine

import (
	"syscall"
	"time"
)

// rusageThread is Linux's RUSAGE_THREAD: getrusage for the calling thread
// alone.
const rusageThread = 1

// threadCPU is the CPU time (user and system) the calling thread has used.
// A benchmark that locks its goroutine to its thread (runtime.LockOSThread)
// times a pass with it apart from the runtime's own threads — the
// background scavenger returning the memory a pool's loading left behind,
// which otherwise runs on the other core during the pass and is billed to
// it by cpuTime. The page faults of the pass's own allocations stay in.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return cpuTime()
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
