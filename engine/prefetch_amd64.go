package engine

import "unsafe"

// prefetch asks the processor to bring the cache line at addr in, without
// waiting for it (prefetch_amd64.s: PREFETCHT0). A read-ahead written as
// plain loads, as readAhead's are, holds up every instruction after it
// until the line arrives once the processor's window of instructions in
// flight is full; for the block lists' heads, one place in memory per
// ticket, that cost more than the reads saved (docs/PERFORMANCE.md, the
// fourth round of the encounter history's rules). The hint never faults
// and changes nothing a program can observe but its speed.
//
//go:noescape
func prefetch(addr unsafe.Pointer)
