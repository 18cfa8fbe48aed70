package cupid

import "time"

// WaitEstimate is how much longer a waiting ticket may wait, with an
// interval: "about 40 s, 80 % within 15–90 s". Package waitest makes it
// from a queue key's recent waits; the ticket service gives it with a
// waiting ticket, its created and requeued events and the queue's
// statistics. It is never stored: it is made when it is asked for.
type WaitEstimate struct {
	// Expected is the median wait to come.
	Expected time.Duration
	// Low and High bound the interval that holds Coverage of the waits;
	// High is meaningful only when HighKnown (too few tickets waited that
	// long to know it otherwise).
	Low, High time.Duration
	HighKnown bool
	Coverage  float64
	// Samples is how many recent tickets waited at least as long as this
	// one already has: what the estimate rests on.
	Samples int
}
