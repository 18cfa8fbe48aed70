// Package opponentsvc runs async opponent finders as part of the server: it owns their
// state, keeps it in the store and tells clients what happens. (Skeleton: the
// owner of this package fills it in.)
package opponentsvc

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	cupid "github.com/cupid-match/cupid"
	"github.com/cupid-match/cupid/config"
)

// Options configure the service.
type Options struct {
	Docs     cupid.DocumentStore
	Config   []config.OpponentFinder
	Logger   *slog.Logger
	Registry prometheus.Registerer
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Service is the running service.
type Service struct{ o Options }

// New builds the service; Start loads its state.
func New(o Options) (*Service, error) { return &Service{o: o}, nil }

// Start loads stored state and starts the service's goroutines.
func (s *Service) Start(ctx context.Context) error { return nil }

// Close stops the goroutines; state stays in the store.
func (s *Service) Close() {}
