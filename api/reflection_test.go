package api

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"connectrpc.com/connect"
	"connectrpc.com/grpcreflect"
	"github.com/golang-jwt/jwt/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
)

// TestReflectionListsTheServices asks the server what it serves through
// gRPC server reflection, over gRPC and over Connect, as grpcurl would,
// and reads a service's file back from it.
func TestReflectionListsTheServices(t *testing.T) {
	e := newEnv(t, envOptions{})
	for _, c := range []struct {
		name string
		http *http.Client
		opts []connect.ClientOption
	}{
		{"grpc", e.h2c, []connect.ClientOption{connect.WithGRPC()}},
		// A bidirectional stream: Connect needs HTTP/2 for it too.
		{"connect", e.h2c, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			stream := grpcreflect.NewClient(c.http, e.url, c.opts...).NewStream(context.Background())
			defer stream.Close()
			names, err := stream.ListServices()
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []protoreflect.FullName{cupidv1connect.TicketServiceName, cupidv1connect.MatchServiceName, cupidv1connect.RulesetServiceName} {
				if !slices.Contains(names, want) {
					t.Errorf("reflection lists %v, without %s", names, want)
				}
			}
			// Not served here (no pairing service in this server), so not listed.
			if slices.Contains(names, cupidv1connect.PairingServiceName) {
				t.Errorf("reflection lists %s, which this server does not serve", cupidv1connect.PairingServiceName)
			}
			files, err := stream.FileContainingSymbol(cupidv1connect.TicketServiceName)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, f := range files {
				for _, s := range f.GetService() {
					for _, m := range s.GetMethod() {
						found = found || (s.GetName() == "TicketService" && m.GetName() == "CreateTicket")
					}
				}
			}
			if !found {
				t.Errorf("the files reflection returns for %s do not describe CreateTicket", cupidv1connect.TicketServiceName)
			}
		})
	}
}

// TestReflectionNeedsACredential: with auth on, reflection takes any
// caller the server knows (a player too) and refuses strangers.
func TestReflectionNeedsACredential(t *testing.T) {
	e := newEnv(t, envOptions{options: func(o *Options) {
		o.Auth = testAuth(t, ServerKey{Name: "backend", Hash: HashKey("backend-key"), Scopes: []Scope{ScopeTickets}})
	}})
	list := func(token string) error {
		var hdr []grpcreflect.ClientStreamOption
		if token != "" {
			hdr = append(hdr, grpcreflect.WithRequestHeaders(http.Header{"Authorization": {"Bearer " + token}}))
		}
		stream := grpcreflect.NewClient(e.h2c, e.url, connect.WithGRPC()).NewStream(context.Background(), hdr...)
		defer stream.Close()
		_, err := stream.ListServices()
		return err
	}
	if err := list(""); connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Errorf("without a credential: %v, want unauthenticated", err)
	}
	if err := list("cupid_sk_nobody"); connect.CodeOf(err) != connect.CodeUnauthenticated {
		t.Errorf("with an unknown key: %v, want unauthenticated", err)
	}
	if err := list("backend-key"); err != nil {
		t.Errorf("with a tickets key: %v", err)
	}
	if err := list(sign(t, jwt.SigningMethodHS256, testSecret, claims(nil))); err != nil {
		t.Errorf("with a player token: %v", err)
	}
}
