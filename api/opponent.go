package api

import (
	"log/slog"
	"net/http"

	"connectrpc.com/connect"

	"github.com/cupid-match/cupid/matchmaker/opponentsvc"
)

// registerOpponent mounts the opponent service's handlers. (Skeleton.)
func registerOpponent(mux *http.ServeMux, svc *opponentsvc.Service, log *slog.Logger, opts []connect.HandlerOption) {
}
