package api

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"
	"github.com/golang-jwt/jwt/v5"

	cupid "github.com/cupid-match/cupid"
)

// Who may do what. Two kinds of callers present a bearer credential
// (Authorization: Bearer …, or for WebSockets also ?token=…):
//
//   - a game backend with a server key: a random string whose SHA-256 hash
//     is configured with a name and scopes; it may act for any player
//     within its scopes;
//   - a game client with a player token: a JWT signed by the studio's own
//     auth service (HS256, EdDSA or RS256), whose sub is the player; it may
//     act only as that player (permissions.go says where).
//
// The middleware (protect) authenticates every request but /healthz,
// /readyz and /openapi.json and puts the Caller in the context; an interceptor and the
// WebSocket check authorize (permissions.go). Keys and tokens are never
// logged.

// Scope is what a server key may do.
type Scope string

// The scopes of server keys. ScopeAdmin implies every other, and is the
// one that reads /debug/pprof.
const (
	ScopeTickets   Scope = "tickets"
	ScopeRulesets  Scope = "rulesets"
	ScopeEvents    Scope = "events"
	ScopeOpponents Scope = "opponents"
	ScopeAdmin     Scope = "admin"
)

// Scopes lists every scope, in the order documentation shows them.
var Scopes = []Scope{ScopeTickets, ScopeRulesets, ScopeEvents, ScopeOpponents, ScopeAdmin}

// ServerKey is a configured server key: its name (for logs and errors),
// the SHA-256 of the key (the key itself is never configured) and its
// scopes.
type ServerKey struct {
	Name   string
	Hash   [sha256.Size]byte
	Scopes []Scope
}

// has reports whether the key grants scope.
func (k *ServerKey) has(s Scope) bool {
	return slices.Contains(k.Scopes, s) || slices.Contains(k.Scopes, ScopeAdmin)
}

// PlayerTokens configure the player tokens a server accepts.
type PlayerTokens struct {
	// Audience must be in the token's aud.
	Audience string
	// Issuer, when set, must be the token's iss.
	Issuer string
	// Leeway forgives clock skew on exp, nbf and iat.
	Leeway time.Duration
	// HS256Secret verifies HS256 tokens; none when empty.
	HS256Secret []byte
	// PublicKeys verify EdDSA (ed25519.PublicKey) and RS256
	// (*rsa.PublicKey) tokens; several keys of a kind allow a rotation.
	PublicKeys []crypto.PublicKey
}

// AuthOptions configure NewAuth.
type AuthOptions struct {
	// Keys are the server keys; SetKeys replaces them while the server
	// runs.
	Keys []ServerKey
	// Tokens configure player tokens; none are accepted when nil.
	Tokens *PlayerTokens
	// MetricsOpen serves /metrics (and /debug/pprof) without a key.
	MetricsOpen bool
	// PlayerModelFinders names the opponent finders whose players may
	// update their own model with a player token.
	PlayerModelFinders []string
	// Now is the clock for token expiry; time.Now when nil.
	Now func() time.Time
}

// Auth authenticates callers and authorizes their calls. A nil *Auth is a
// server without auth: every caller may do everything.
type Auth struct {
	keys          atomic.Pointer[map[[sha256.Size]byte]*ServerKey]
	tokens        *tokenParser
	metricsOpen   bool
	playerFinders map[string]bool
}

// NewAuth checks the options and returns an Auth.
func NewAuth(o AuthOptions) (*Auth, error) {
	a := &Auth{metricsOpen: o.MetricsOpen, playerFinders: map[string]bool{}}
	for _, f := range o.PlayerModelFinders {
		a.playerFinders[f] = true
	}
	if o.Tokens != nil {
		p, err := newTokenParser(*o.Tokens, o.Now)
		if err != nil {
			return nil, err
		}
		a.tokens = p
	}
	if err := a.SetKeys(o.Keys); err != nil {
		return nil, err
	}
	return a, nil
}

// SetKeys replaces the server keys at once: a key no longer listed stops
// working for the next request.
func (a *Auth) SetKeys(keys []ServerKey) error {
	m := make(map[[sha256.Size]byte]*ServerKey, len(keys))
	for i := range keys {
		k := keys[i]
		if _, dup := m[k.Hash]; dup {
			return fmt.Errorf("server key %q: the same key hash is listed twice", k.Name)
		}
		m[k.Hash] = &k
	}
	a.keys.Store(&m)
	return nil
}

// KeyNames lists the names of the current server keys, sorted.
func (a *Auth) KeyNames() []string {
	var out []string
	for _, k := range *a.keys.Load() {
		out = append(out, k.Name)
	}
	slices.Sort(out)
	return out
}

// HashKey returns the SHA-256 of a server key, as configured.
func HashKey(key string) [sha256.Size]byte { return sha256.Sum256([]byte(key)) }

// Caller is who makes a request: a server key or a player.
type Caller struct {
	// Key is the server key; nil for a player.
	Key *ServerKey
	// Player is the player of a player token (its sub).
	Player string
}

func (c *Caller) String() string {
	if c.Key != nil {
		return "server key " + c.Key.Name
	}
	return "the token's player " + c.Player
}

type callerKey struct{}

// CallerFrom returns the request's caller: nil on a server without auth.
func CallerFrom(ctx context.Context) *Caller {
	c, _ := ctx.Value(callerKey{}).(*Caller)
	return c
}

// maxCredential bounds a bearer credential; a player token is a few
// hundred bytes, an RS256 one with many claims a few kilobytes.
const maxCredential = 8 << 10

// errNoCredential is the answer to a request without credentials.
var errNoCredential = cupid.Errorf(cupid.CodeUnauth, "authorization",
	"a server key or player token is required (Authorization: Bearer …)")

// authenticate finds the caller of a bearer credential.
func (a *Auth) authenticate(cred string) (*Caller, error) {
	if cred == "" {
		return nil, errNoCredential
	}
	if len(cred) > maxCredential {
		return nil, cupid.Errorf(cupid.CodeUnauth, "authorization", "the bearer credential is longer than %d bytes", maxCredential)
	}
	if k, ok := (*a.keys.Load())[HashKey(cred)]; ok {
		return &Caller{Key: k}, nil
	}
	if strings.Count(cred, ".") != 2 {
		return nil, cupid.Errorf(cupid.CodeUnauth, "authorization", "the bearer credential is not a known server key (revoked, or mistyped) nor a player token")
	}
	if a.tokens == nil {
		return nil, cupid.Errorf(cupid.CodeUnauth, "authorization", "player tokens are not accepted by this server (auth.player_tokens is not configured)")
	}
	player, err := a.tokens.parse(cred)
	if err != nil {
		return nil, err
	}
	return &Caller{Player: player}, nil
}

// credential reads the bearer credential of a request: the Authorization
// header, or for a WebSocket (browsers cannot set its headers) the token
// query parameter.
func credential(r *http.Request) (string, error) {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, cred, ok := strings.Cut(h, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(cred) == "" {
			return "", cupid.Errorf(cupid.CodeUnauth, "authorization", "the Authorization header must be \"Bearer <server key or player token>\"")
		}
		return strings.TrimSpace(cred), nil
	}
	if isSocket(r) {
		return r.URL.Query().Get("token"), nil
	}
	return "", nil
}

// isSocket reports whether r asks for one of the WebSockets.
func isSocket(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/") && strings.HasSuffix(r.URL.Path, "/ws")
}

// protect authenticates every request but the open ones; the Connect
// procedures are authorized by the interceptor, the WebSockets here, and
// /metrics needs a server key unless auth.metrics is open.
func (a *Auth) protect(h http.Handler, lookup ticketPlayers, opts []connect.HandlerOption, log *slog.Logger) http.Handler {
	if a == nil {
		return h
	}
	ew := connect.NewErrorWriter(opts...)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch p := r.URL.Path; {
		case p == "/healthz" || p == "/readyz" || p == "/openapi.json":
			h.ServeHTTP(w, r)
			return
		case p == "/metrics" && a.metricsOpen:
			h.ServeHTTP(w, r)
			return
		}
		fail := func(err error) {
			if ew.IsSupported(r) {
				ew.Write(w, r, connectError(log, err))
				return
			}
			httpError(w, err)
		}
		cred, err := credential(r)
		if err != nil {
			fail(err)
			return
		}
		c, err := a.authenticate(cred)
		if err != nil {
			fail(err)
			return
		}
		if r.URL.Path == "/metrics" && c.Key == nil {
			fail(denied("/metrics needs a server key (or auth.metrics: open); %s may not read it", c))
			return
		}
		if isSocket(r) {
			if err := a.authorizeSocket(r, c, lookup); err != nil {
				fail(err)
				return
			}
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), callerKey{}, c)))
	})
}

// ProtectDebug guards the profiler (/debug/pprof): a server key with the
// admin scope, unless auth.metrics is open. A nil Auth lets every request
// through.
func (a *Auth) ProtectDebug(h http.Handler) http.Handler {
	if a == nil || a.metricsOpen {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cred, err := credential(r)
		if err == nil {
			var c *Caller
			if c, err = a.authenticate(cred); err == nil && (c.Key == nil || !c.Key.has(ScopeAdmin)) {
				err = denied("/debug/pprof needs a server key with the admin scope; %s has not", c)
			}
		}
		if err != nil {
			httpError(w, err)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// denied is a permission_denied error.
func denied(format string, args ...any) error {
	return cupid.Errorf(cupid.CodeDenied, "", format, args...)
}

// tokenParser verifies player tokens with the configured algorithms only.
type tokenParser struct {
	parser  *jwt.Parser
	keys    map[string]jwt.VerificationKeySet
	methods []string
	aud     string
	now     func() time.Time
}

// DefaultLeeway forgives this much clock skew on a token's times when the
// configuration does not say.
const DefaultLeeway = 30 * time.Second

func newTokenParser(o PlayerTokens, now func() time.Time) (*tokenParser, error) {
	if o.Audience == "" {
		return nil, errors.New("player tokens need an audience")
	}
	if now == nil {
		now = time.Now
	}
	p := &tokenParser{keys: map[string]jwt.VerificationKeySet{}, aud: o.Audience, now: now}
	add := func(alg string, k jwt.VerificationKey) {
		set := p.keys[alg]
		set.Keys = append(set.Keys, k)
		p.keys[alg] = set
	}
	if len(o.HS256Secret) > 0 {
		if len(o.HS256Secret) < 32 {
			return nil, fmt.Errorf("the HS256 secret is %d bytes; at least 32 are needed", len(o.HS256Secret))
		}
		add(jwt.SigningMethodHS256.Alg(), o.HS256Secret)
	}
	for i, k := range o.PublicKeys {
		switch k := k.(type) {
		case ed25519.PublicKey:
			add(jwt.SigningMethodEdDSA.Alg(), k)
		case *rsa.PublicKey:
			if k.N.BitLen() < 2048 {
				return nil, fmt.Errorf("public key %d: an RSA key of %d bits; at least 2048 are needed", i+1, k.N.BitLen())
			}
			add(jwt.SigningMethodRS256.Alg(), k)
		default:
			return nil, fmt.Errorf("public key %d: a %T; only Ed25519 (EdDSA) and RSA (RS256) keys verify player tokens", i+1, k)
		}
	}
	if len(p.keys) == 0 {
		return nil, errors.New("player tokens need an HS256 secret or a public key")
	}
	for alg := range p.keys {
		p.methods = append(p.methods, alg)
	}
	slices.Sort(p.methods)
	leeway := o.Leeway
	if leeway == 0 {
		leeway = DefaultLeeway
	}
	opts := []jwt.ParserOption{
		jwt.WithValidMethods(p.methods),
		jwt.WithAudience(o.Audience),
		jwt.WithExpirationRequired(),
		jwt.WithLeeway(leeway),
		jwt.WithTimeFunc(func() time.Time { return p.now() }),
	}
	if o.Issuer != "" {
		opts = append(opts, jwt.WithIssuer(o.Issuer))
	}
	p.parser = jwt.NewParser(opts...)
	return p, nil
}

// maxPlayerID bounds a token's sub as the ticket service bounds ids.
const maxPlayerID = 256

// parse verifies a player token and returns its player (sub). Its errors
// are unauthenticated and say what is wrong without echoing the token.
func (p *tokenParser) parse(s string) (string, error) {
	var claims jwt.RegisteredClaims
	_, err := p.parser.ParseWithClaims(s, &claims, func(t *jwt.Token) (any, error) {
		set, ok := p.keys[t.Method.Alg()]
		if !ok {
			return nil, fmt.Errorf("no key for %s", t.Method.Alg())
		}
		return set, nil
	})
	if err != nil {
		return "", tokenError(err, s, p)
	}
	switch {
	case claims.Subject == "":
		return "", cupid.Errorf(cupid.CodeUnauth, "authorization", "the player token has no sub (the player id)")
	case len(claims.Subject) > maxPlayerID:
		return "", cupid.Errorf(cupid.CodeUnauth, "authorization", "the player token's sub is longer than %d bytes", maxPlayerID)
	}
	return claims.Subject, nil
}

// tokenError says why a token was refused.
func tokenError(err error, s string, p *tokenParser) error {
	msg := "the player token is not valid"
	alg := tokenAlg(s)
	switch {
	case errors.Is(err, jwt.ErrTokenMalformed):
		msg = "the bearer credential is not a well-formed player token (nor a known server key)"
	case !slices.Contains(p.methods, strings.Trim(alg, `"`)):
		msg = fmt.Sprintf("the player token is signed with alg %s; this server accepts %s", alg, strings.Join(p.methods, ", "))
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing) && strings.Contains(err.Error(), "aud"):
		msg = fmt.Sprintf("the player token has no aud (it must include %q)", p.aud)
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		msg = "the player token's signature does not verify"
	case errors.Is(err, jwt.ErrTokenUnverifiable):
		msg = fmt.Sprintf("the player token is signed with alg %s; this server accepts %s", alg, strings.Join(p.methods, ", "))
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		msg = "the player token has no exp (an expiry is required)"
	case errors.Is(err, jwt.ErrTokenExpired):
		msg = "the player token has expired"
	case errors.Is(err, jwt.ErrTokenNotValidYet):
		msg = "the player token is not valid yet (nbf)"
	case errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		msg = "the player token was issued in the future (iat)"
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		msg = fmt.Sprintf("the player token's aud does not include %q", p.aud)
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		msg = "the player token's iss is not the configured issuer"
	case errors.Is(err, jwt.ErrTokenInvalidClaims):
		msg = "the player token's claims are malformed"
	}
	return cupid.Errorf(cupid.CodeUnauth, "authorization", "%s", msg)
}

// tokenAlg reads a token's alg header for an error message, bounded and
// printable.
func tokenAlg(s string) string {
	t, _, err := jwt.NewParser().ParseUnverified(s, &jwt.RegisteredClaims{})
	if err != nil || t == nil {
		return "(unreadable)"
	}
	alg, _ := t.Header["alg"].(string)
	if len(alg) > 16 || strings.ContainsFunc(alg, func(r rune) bool { return r < ' ' || r > '~' }) {
		return "(unreadable)"
	}
	return fmt.Sprintf("%q", alg)
}
