package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/cupid-match/cupid/api"
	"github.com/cupid-match/cupid/config"
)

// keysPollInterval is how often the server looks at the keys' file for a
// change; SIGHUP re-reads it at once.
var keysPollInterval = time.Second

// setupAuth builds who may do what from the configuration. Without an
// auth section the server runs open, which it allows only on loopback. With
// one, the server keys are re-read when their file changes and on SIGHUP;
// stop ends the watching.
func setupAuth(cfg *config.Config, configPath, addr string, log *slog.Logger) (auth *api.Auth, stop func(), err error) {
	stop = func() {}
	if cfg.Auth == nil {
		if !isLoopback(addr) {
			return nil, stop, fmt.Errorf("--addr %s listens beyond loopback, and the configuration has no auth section, "+
				"so anyone who reaches the port could create and cancel any ticket, replace rulesets and change players' data. "+
				"Add an auth section to --config (auth.server_keys with a key from `cupid key new`, and auth.player_tokens for "+
				"game clients; see docs/security.md), or listen on 127.0.0.1", addr)
		}
		log.Warn(fmt.Sprintf("auth is off: anyone who reaches %s may create, read and cancel any ticket, replace rulesets, run events "+
			"and change players' opponent models; add an auth section to the configuration to require server keys and player tokens", addr))
		return nil, stop, nil
	}
	opts, err := authOptions(cfg)
	if err != nil {
		return nil, stop, err
	}
	auth, err = api.NewAuth(opts)
	if err != nil {
		return nil, stop, fmt.Errorf("auth: %w", err)
	}
	source := cfg.Auth.ServerKeysFile
	if source == "" {
		source = configPath
	}
	var tokens []string
	if pt := cfg.Auth.PlayerTokens; pt != nil {
		if pt.Secret() != nil {
			tokens = append(tokens, "HS256")
		}
		for _, k := range pt.PublicKeys() {
			tokens = append(tokens, fmt.Sprintf("%T", k))
		}
	}
	log.Info("auth is on", "server_keys", auth.KeyNames(), "keys_file", source, "player_tokens", tokens, "metrics", cfg.Auth.Metrics)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go watchKeys(ctx, auth, source, cfg.Auth.ServerKeysFile != "", log, done)
	return auth, func() { cancel(); <-done }, nil
}

// authOptions turns the auth section into the API's plain values.
func authOptions(cfg *config.Config) (api.AuthOptions, error) {
	a := cfg.Auth
	o := api.AuthOptions{Keys: serverKeys(a.ServerKeys), MetricsOpen: a.Metrics == config.MetricsOpen}
	if pt := a.PlayerTokens; pt != nil {
		o.Tokens = &api.PlayerTokens{
			Audience: pt.Audience, Issuer: pt.Issuer, Leeway: time.Duration(pt.Leeway),
			HS256Secret: pt.Secret(), PublicKeys: pt.PublicKeys(),
		}
	}
	for _, f := range cfg.Opponents {
		if f.PlayersMayUpdate {
			o.PlayerModelFinders = append(o.PlayerModelFinders, f.Name)
		}
	}
	return o, nil
}

func serverKeys(in []config.ServerKey) []api.ServerKey {
	out := make([]api.ServerKey, len(in))
	for i, k := range in {
		out[i] = api.ServerKey{Name: k.Name, Hash: k.Hash()}
		for _, s := range k.Scopes {
			out[i].Scopes = append(out[i].Scopes, api.Scope(s))
		}
	}
	return out
}

// watchKeys re-reads the server keys when their file's content changes and
// on SIGHUP. A file that no longer loads is logged and the keys stay as
// they were: fix it, and the next read applies it.
func watchKeys(ctx context.Context, auth *api.Auth, path string, keysFile bool, log *slog.Logger, done chan<- struct{}) {
	defer close(done)
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	last, _ := os.ReadFile(path)
	tick := time.NewTicker(keysPollInterval)
	defer tick.Stop()
	for {
		forced := false
		select {
		case <-ctx.Done():
			return
		case <-hup:
			forced = true
		case <-tick.C:
		}
		data, err := os.ReadFile(path)
		if err != nil {
			if forced {
				log.Error("server keys not reloaded: the file cannot be read; the keys stay as they were", "file", path, "err", err)
			}
			continue
		}
		if !forced && bytes.Equal(data, last) {
			continue
		}
		last = data
		keys, err := readKeys(path, keysFile, log)
		if err != nil {
			log.Error("server keys not reloaded: the file has a problem; the keys stay as they were", "err", err)
			continue
		}
		if err := auth.SetKeys(serverKeys(keys)); err != nil {
			log.Error("server keys not reloaded", "err", err)
			continue
		}
		log.Info("server keys reloaded", "file", path, "server_keys", auth.KeyNames())
	}
}

// readKeys reads the server keys from a keys file, or from the auth
// section of the configuration file.
func readKeys(path string, keysFile bool, log *slog.Logger) ([]config.ServerKey, error) {
	if keysFile {
		return config.LoadServerKeysFile(path)
	}
	cfg, err := config.LoadConfig(path)
	if err != nil {
		return nil, err
	}
	if cfg.Auth == nil {
		log.Error("the auth section is gone from the configuration: every server key is revoked (restart to run without auth, on loopback only)", "file", path)
		return nil, nil
	}
	if cfg.Auth.ServerKeysFile != "" {
		return config.LoadServerKeysFile(cfg.Auth.ServerKeysFile)
	}
	return cfg.Auth.ServerKeys, nil
}

// isLoopback reports whether addr (host:port) listens on loopback only:
// 127.0.0.0/8, ::1 or localhost. An empty host is every interface.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// bearerTransport sends a server key or player token with every request
// (cupid load --key, and tests).
type bearerTransport struct {
	token string
	next  http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// withBearer returns c sending token; c itself when token is empty.
func withBearer(c *http.Client, token string) *http.Client {
	if token == "" {
		return c
	}
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	out := *c
	out.Transport = bearerTransport{token: token, next: next}
	return &out
}
