package api

import (
	"net/http"

	"connectrpc.com/connect"
	"connectrpc.com/grpcreflect"
)

// Reflection procedures: the v1 service and the older v1alpha one that
// many tools (grpcurl, grpcui, Postman) still try first.
var reflectionProcedures = []string{
	"/" + grpcreflect.ReflectV1ServiceName + "/ServerReflectionInfo",
	"/" + grpcreflect.ReflectV1AlphaServiceName + "/ServerReflectionInfo",
}

// registerReflection serves gRPC server reflection on the API's port, for
// the services this server runs, so grpcurl and the like can call it
// without the proto files. It goes through the same options as the API —
// rate limits and, with auth, any credential (permissions.go) — because
// it is a Connect procedure like the others.
func registerReflection(mux *http.ServeMux, services []string, opts []connect.HandlerOption) {
	reflector := grpcreflect.NewStaticReflector(services...)
	mux.Handle(grpcreflect.NewHandlerV1(reflector, opts...))
	mux.Handle(grpcreflect.NewHandlerV1Alpha(reflector, opts...))
}
