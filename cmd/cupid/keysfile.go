package main

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/cupid-match/cupid/api"
	"github.com/cupid-match/cupid/config"
)

// initKeysFile makes a server keys file (the auth.server_keys_file format)
// holding one new key with the admin scope, unless the file exists. It
// returns the key when it made the file, "" when the file was there. The
// file is written aside and linked into place, so several processes
// starting at once (the nodes of a compose file sharing a volume) make one
// file and one key between them, and none reads a half-written file.
func initKeysFile(path string) (key string, err error) {
	if _, err := os.Stat(path); err == nil {
		return "", nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	key, err = newKey()
	if err != nil {
		return "", err
	}
	h := api.HashKey(key)
	content := fmt.Sprintf(`# Cupid's server keys (auth.server_keys_file), made when the file was first
# needed. Only each key's SHA-256 is kept; the key itself was printed once.
# Add keys with the entries cupid key new prints: the server re-reads this
# file when it changes.
server_keys:
  - name: admin
    sha256: %s
    scopes: [admin]
`, hex.EncodeToString(h[:]))
	tmp, err := os.CreateTemp(filepath.Dir(path), ".server-keys-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(content); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return "", nil // another process made it first: its key stands
		}
		return "", err
	}
	return key, nil
}

// printNewKey tells the operator the key made for him, the one time it
// can be told: only its hash is kept.
func printNewKey(w io.Writer, key, path string) {
	fmt.Fprintf(w, `
A new server key with the admin scope was made; its SHA-256 is in %s.
This is the only time it is shown. Keep it secret, and send it as
"Authorization: Bearer <key>":

    %s

`, path, key)
}

// keyInitCmd is "cupid key init FILE": a server keys file with one admin
// key, made once (the compose file's first step).
func keyInitCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "init FILE",
		Short: "Make a server keys file with one new admin key, printed once, unless the file exists",
		Long: `init makes FILE, in the format of auth.server_keys_file, holding the hash of one
new server key named admin with the admin scope, and prints the key. It is
shown only this once. When FILE exists, init leaves it alone and says so.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			key, err := initKeysFile(args[0])
			if err != nil {
				return err
			}
			if key == "" {
				fmt.Fprintf(cmd.OutOrStdout(), "%s exists: its keys stand, no key was made\n", args[0])
				return nil
			}
			printNewKey(cmd.OutOrStdout(), key, args[0])
			return nil
		},
	}
}

// keysFromFlags applies --server-keys-file and --init-keys: a
// configuration without an auth section gets one whose server keys are
// the file's (re-read when it changes), the file made first with a new
// admin key when asked. A configuration with its own auth section is
// refused: two places for keys would leave one of them ignored.
func keysFromFlags(cfg *config.Config, f serveFlags, out io.Writer) error {
	if f.serverKeysFile == "" {
		if f.initKeys {
			return fmt.Errorf("--init-keys: needs --server-keys-file, the file to make")
		}
		return nil
	}
	if cfg.Auth != nil {
		return fmt.Errorf("--server-keys-file: the configuration has an auth section of its own; name the file there (auth.server_keys_file) instead")
	}
	if f.initKeys {
		key, err := initKeysFile(f.serverKeysFile)
		if err != nil {
			return fmt.Errorf("--init-keys: %w", err)
		}
		if key != "" {
			printNewKey(out, key, f.serverKeysFile)
		}
	}
	keys, err := config.LoadServerKeysFile(f.serverKeysFile)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("--server-keys-file: %w (--init-keys makes it with a new admin key)", err)
		}
		return fmt.Errorf("--server-keys-file: %w", err)
	}
	cfg.Auth = &config.Auth{Metrics: config.MetricsKey, ServerKeys: keys, ServerKeysFile: f.serverKeysFile}
	return nil
}
