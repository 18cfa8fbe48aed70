package storetest

import (
	"context"
	"sync"
	"time"

	"github.com/cupid-match/cupid"
)

// FenceLog is a document store that notes the fence of every document it
// writes: a test of a service that runs under a lease (parties, lobbies)
// checks that each write carries the lease's fence.
type FenceLog struct {
	cupid.DocumentStore
	mu     sync.Mutex
	fences []cupid.Fence
}

// PutDocument notes fence and writes.
func (f *FenceLog) PutDocument(ctx context.Context, fence cupid.Fence, kind, id string, body []byte, now time.Time) error {
	f.mu.Lock()
	f.fences = append(f.fences, fence)
	f.mu.Unlock()
	return f.DocumentStore.PutDocument(ctx, fence, kind, id, body, now)
}

// Last is the fence of the latest write (zero before any).
func (f *FenceLog) Last() cupid.Fence {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.fences) == 0 {
		return cupid.Fence{}
	}
	return f.fences[len(f.fences)-1]
}
