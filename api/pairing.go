package api

import (
	"log/slog"
	"net/http"

	"connectrpc.com/connect"

	"github.com/cupid-match/cupid/matchmaker/pairingsvc"
)

// registerPairing mounts the pairing service's handlers. (Skeleton.)
func registerPairing(mux *http.ServeMux, svc *pairingsvc.Service, log *slog.Logger, opts []connect.HandlerOption) {
}
