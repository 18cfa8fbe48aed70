package api

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	cupid "github.com/cupid-match/cupid"
	cupidv1 "github.com/cupid-match/cupid/gen/cupid/v1"
	"github.com/cupid-match/cupid/gen/cupid/v1/cupidv1connect"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

var (
	testSecret        = []byte(strings.Repeat("k", 32))
	testEd, testEdPub = mustEd()
	testRSA           = mustRSA()
	testNow           = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
)

func mustEd() (ed25519.PrivateKey, ed25519.PublicKey) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	return priv, pub
}

func mustRSA() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
}

func testAuth(t testing.TB, keys ...ServerKey) *Auth {
	t.Helper()
	a, err := NewAuth(AuthOptions{
		Keys: keys,
		Tokens: &PlayerTokens{Audience: "cupid", HS256Secret: testSecret,
			PublicKeys: []crypto.PublicKey{testEdPub, &testRSA.PublicKey}},
		Now:                func() time.Time { return testNow },
		PlayerModelFinders: []string{"open-finder"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func sign(t testing.TB, m jwt.SigningMethod, key any, claims jwt.MapClaims) string {
	t.Helper()
	s, err := jwt.NewWithClaims(m, claims).SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func claims(extra map[string]any) jwt.MapClaims {
	c := jwt.MapClaims{"sub": "alice", "aud": "cupid", "exp": testNow.Add(time.Hour).Unix(), "iat": testNow.Unix()}
	for k, v := range extra {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	return c
}

func TestParseToken(t *testing.T) {
	a := testAuth(t)
	otherEd, _ := mustEd()
	none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, claims(nil)).SignedString(jwt.UnsafeAllowNoneSignatureType)
	// An HS256 token signed with the RSA public key as secret: the classic
	// algorithm confusion, refused because the RSA key verifies RS256 only.
	confused := sign(t, jwt.SigningMethodHS256, []byte(strings.Repeat("p", 40)), claims(nil))
	cases := []struct {
		name, token string
		player      string
		want        string
	}{
		{"HS256", sign(t, jwt.SigningMethodHS256, testSecret, claims(nil)), "alice", ""},
		{"EdDSA", sign(t, jwt.SigningMethodEdDSA, testEd, claims(nil)), "alice", ""},
		{"RS256", sign(t, jwt.SigningMethodRS256, testRSA, claims(nil)), "alice", ""},
		{"aud list", sign(t, jwt.SigningMethodHS256, testSecret, claims(map[string]any{"aud": []string{"other", "cupid"}})), "alice", ""},
		{"expired within leeway", sign(t, jwt.SigningMethodHS256, testSecret, claims(map[string]any{"exp": testNow.Add(-10 * time.Second).Unix()})), "alice", ""},
		{"expired", sign(t, jwt.SigningMethodHS256, testSecret, claims(map[string]any{"exp": testNow.Add(-time.Minute).Unix()})), "", "has expired"},
		{"no exp", sign(t, jwt.SigningMethodHS256, testSecret, claims(map[string]any{"exp": nil})), "", "no exp"},
		{"not yet", sign(t, jwt.SigningMethodHS256, testSecret, claims(map[string]any{"nbf": testNow.Add(time.Hour).Unix()})), "", "not valid yet"},
		{"wrong audience", sign(t, jwt.SigningMethodHS256, testSecret, claims(map[string]any{"aud": "other"})), "", `aud does not include "cupid"`},
		{"no audience", sign(t, jwt.SigningMethodHS256, testSecret, claims(map[string]any{"aud": nil})), "", "aud"},
		{"no sub", sign(t, jwt.SigningMethodHS256, testSecret, claims(map[string]any{"sub": nil})), "", "no sub"},
		{"long sub", sign(t, jwt.SigningMethodHS256, testSecret, claims(map[string]any{"sub": strings.Repeat("a", 300)})), "", "longer than"},
		{"bad HS256 signature", sign(t, jwt.SigningMethodHS256, []byte(strings.Repeat("x", 32)), claims(nil)), "", "signature does not verify"},
		{"bad EdDSA signature", sign(t, jwt.SigningMethodEdDSA, otherEd, claims(nil)), "", "signature does not verify"},
		{"bad RS256 signature", sign(t, jwt.SigningMethodRS256, mustRSA(), claims(nil)), "", "signature does not verify"},
		{"alg none", none, "", `alg "none"`},
		{"alg HS384", sign(t, jwt.SigningMethodHS384, testSecret, claims(nil)), "", `alg "HS384"; this server accepts EdDSA, HS256, RS256`},
		{"algorithm confusion", confused, "", "signature does not verify"},
		{"tampered", sign(t, jwt.SigningMethodHS256, testSecret, claims(nil)) + "x", "", "signature"},
		{"garbage with dots", "a.b.c", "", "not a well-formed player token"},
		{"unknown key", "cupid_sk_nope", "", "not a known server key"},
		{"empty", "", "", "a server key or player token is required"},
		{"too long", strings.Repeat("a", maxCredential+1), "", "longer than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			caller, err := a.authenticate(c.token)
			if c.want == "" {
				if err != nil || caller.Player != c.player {
					t.Fatalf("caller %+v, err %v; want player %s", caller, err, c.player)
				}
				return
			}
			if err == nil || cupid.ErrorCode(err) != cupid.CodeUnauth || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want unauthenticated containing %q", err, c.want)
			}
			if c.token != "" && len(c.token) < 1000 && strings.Contains(err.Error(), c.token) {
				t.Fatalf("the error repeats the credential: %v", err)
			}
		})
	}
}

func TestOnlyConfiguredAlgorithms(t *testing.T) {
	a, err := NewAuth(AuthOptions{Tokens: &PlayerTokens{Audience: "cupid", PublicKeys: []crypto.PublicKey{testEdPub}},
		Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	for name, tok := range map[string]string{
		"HS256": sign(t, jwt.SigningMethodHS256, testSecret, claims(nil)),
		"RS256": sign(t, jwt.SigningMethodRS256, testRSA, claims(nil)),
	} {
		if _, err := a.authenticate(tok); err == nil || !strings.Contains(err.Error(), "this server accepts EdDSA") {
			t.Errorf("%s on an EdDSA-only server: %v", name, err)
		}
	}
	if c, err := a.authenticate(sign(t, jwt.SigningMethodEdDSA, testEd, claims(nil))); err != nil || c.Player != "alice" {
		t.Fatalf("EdDSA: %+v %v", c, err)
	}
}

func TestNewAuthRefusesWeakSettings(t *testing.T) {
	small, _ := rsa.GenerateKey(rand.Reader, 1024)
	for name, o := range map[string]PlayerTokens{
		"no audience":  {HS256Secret: testSecret},
		"short secret": {Audience: "a", HS256Secret: []byte("short")},
		"no key":       {Audience: "a"},
		"small RSA":    {Audience: "a", PublicKeys: []crypto.PublicKey{&small.PublicKey}},
		"ECDSA":        {Audience: "a", PublicKeys: []crypto.PublicKey{"not a key"}},
	} {
		if _, err := NewAuth(AuthOptions{Tokens: &o}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestServerKeys(t *testing.T) {
	k1 := ServerKey{Name: "backend", Hash: HashKey("cupid_sk_one"), Scopes: []Scope{ScopeTickets}}
	k2 := ServerKey{Name: "ops", Hash: HashKey("cupid_sk_two"), Scopes: []Scope{ScopeAdmin}}
	a := testAuth(t, k1, k2)
	for _, c := range []struct {
		key, name string
		scope     Scope
		has       bool
	}{
		{"cupid_sk_one", "backend", ScopeTickets, true},
		{"cupid_sk_one", "backend", ScopeRulesets, false},
		{"cupid_sk_two", "ops", ScopeOpponents, true}, // admin implies all
	} {
		caller, err := a.authenticate(c.key)
		if err != nil || caller.Key.Name != c.name || caller.Key.has(c.scope) != c.has {
			t.Fatalf("%s: %+v %v", c.key, caller, err)
		}
	}
	if err := a.SetKeys([]ServerKey{k2}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.authenticate("cupid_sk_one"); err == nil || !strings.Contains(err.Error(), "not a known server key") {
		t.Fatalf("a removed key: %v", err)
	}
	if err := a.SetKeys([]ServerKey{k2, {Name: "again", Hash: k2.Hash}}); err == nil {
		t.Fatal("a hash listed twice was accepted")
	}
}

func TestAuthorize(t *testing.T) {
	tickets := ServerKey{Name: "backend", Scopes: []Scope{ScopeTickets}}
	a := testAuth(t)
	lookup := func(_ context.Context, id string) ([]string, error) {
		if id == "t-alice" {
			return []string{"alice", "ann"}, nil
		}
		return nil, cupid.NotFound("id", "no ticket %s", id)
	}
	player := &Caller{Player: "bob"}
	key := &Caller{Key: &tickets}
	deny := func(c *Caller, proc string, msg any, want string) {
		t.Helper()
		err := a.authorize(context.Background(), c, lookup, proc, msg)
		if cupid.ErrorCode(err) != cupid.CodeDenied || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s by %s: %v, want permission_denied with %q", proc, c, err, want)
		}
	}
	allow := func(c *Caller, proc string, msg any) {
		t.Helper()
		if err := a.authorize(context.Background(), c, lookup, proc, msg); err != nil {
			t.Fatalf("%s by %s: %v", proc, c, err)
		}
	}
	deny(player, cupidv1connect.TicketServiceGetTicketProcedure, getTicket("t-alice"), "the token's player bob is not in ticket t-alice")
	allow(&Caller{Player: "ann"}, cupidv1connect.TicketServiceGetTicketProcedure, getTicket("t-alice"))
	allow(key, cupidv1connect.TicketServiceGetTicketProcedure, getTicket("t-alice"))
	deny(key, cupidv1connect.RulesetServicePutRulesetProcedure, nil, "PutRuleset needs the rulesets scope; server key backend has tickets")
	deny(player, cupidv1connect.TicketServiceListTicketsProcedure, nil, "ListTickets needs a server key with the tickets scope")
	deny(key, "/cupid.v1.NewService/Thing", nil, "needs a server key with the admin scope")
	if err := a.authorize(context.Background(), nil, lookup, cupidv1connect.TicketServiceGetTicketProcedure, nil); cupid.ErrorCode(err) != cupid.CodeUnauth {
		t.Fatalf("no caller: %v", err)
	}
}

// TestEveryProcedureHasARule: a procedure added to the API without a rule
// would be refused to everyone but admin keys; this names it.
func TestEveryProcedureHasARule(t *testing.T) {
	n := len(reflectionProcedures)
	for _, p := range reflectionProcedures {
		if _, ok := rules[p]; !ok {
			t.Errorf("%s has no rule in permissions.go", p)
		}
	}
	protoregistry.GlobalFiles.RangeFilesByPackage("cupid.v1", func(fd protoreflect.FileDescriptor) bool {
		for i := 0; i < fd.Services().Len(); i++ {
			s := fd.Services().Get(i)
			for j := 0; j < s.Methods().Len(); j++ {
				p := "/" + string(s.FullName()) + "/" + string(s.Methods().Get(j).Name())
				n++
				if _, ok := rules[p]; !ok {
					t.Errorf("%s has no rule in permissions.go", p)
				}
			}
		}
		return true
	})
	if n != len(rules) {
		t.Errorf("%d procedures, %d rules", n, len(rules))
	}
}

// FuzzParseToken: whatever the credential, authenticate answers without
// panicking, and refuses anything it did not sign.
func FuzzParseToken(f *testing.F) {
	a := testAuth(f, ServerKey{Name: "k", Hash: HashKey("cupid_sk_k"), Scopes: []Scope{ScopeAdmin}})
	f.Add(sign(f, jwt.SigningMethodHS256, testSecret, claims(nil)))
	f.Add(sign(f, jwt.SigningMethodEdDSA, testEd, claims(nil)))
	f.Add("eyJhbGciOiJub25lIn0.eyJzdWIiOiJhIn0.")
	f.Add("a.b.c")
	f.Add("cupid_sk_k")
	f.Add("..")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := a.authenticate(s)
		if err == nil && c == nil {
			t.Fatal("no caller and no error")
		}
		if err != nil && cupid.ErrorCode(err) != cupid.CodeUnauth {
			t.Fatalf("error %v is not unauthenticated", err)
		}
	})
}

func getTicket(id string) any { return &cupidv1.GetTicketRequest{Id: id} }
