package main

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cupid-match/cupid/api"
	"github.com/cupid-match/cupid/config"
)

func keyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "key",
		Short: "Make server keys and their hashes (auth.server_keys)",
	}
	var name string
	var scopes []string
	newCmd := &cobra.Command{
		Use:   "new",
		Short: "Print a new random server key, its SHA-256 and the lines to configure it",
		Long: `new prints a new random server key (give it to the backend, keep it secret) and
the auth.server_keys entry that accepts it: its name, its SHA-256 and its
scopes. The server keeps only the hash.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, s := range scopes {
				if !slices.Contains(config.Scopes, s) {
					return fmt.Errorf("--scopes: unknown scope %q; the scopes are %s", s, strings.Join(config.Scopes, ", "))
				}
			}
			key, err := newKey()
			if err != nil {
				return err
			}
			h := api.HashKey(key)
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "key:    %s\nsha256: %s\n\n", key, hex.EncodeToString(h[:]))
			fmt.Fprintf(out, "# auth.server_keys entry (the server keeps only the hash):\n  - name: %s\n    sha256: %s\n    scopes: [%s]\n",
				name, hex.EncodeToString(h[:]), strings.Join(scopes, ", "))
			return nil
		},
	}
	newCmd.Flags().StringVar(&name, "name", "backend", "the key's name in the configuration, logs and errors")
	newCmd.Flags().StringSliceVar(&scopes, "scopes", []string{"tickets"}, "the key's scopes: "+strings.Join(config.Scopes, ", "))
	hashCmd := &cobra.Command{
		Use:   "hash",
		Short: "Read a server key on standard input and print its SHA-256",
		Long: `hash reads a server key from standard input (so it stays out of the shell's
history) and prints the SHA-256 to configure as auth.server_keys[].sha256.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			key, err := bufio.NewReader(io.LimitReader(cmd.InOrStdin(), 4096)).ReadString('\n')
			if err != nil && err != io.EOF {
				return err
			}
			key = strings.TrimSpace(key)
			if key == "" {
				return fmt.Errorf("no key on standard input (echo \"$KEY\" | cupid key hash)")
			}
			h := api.HashKey(key)
			fmt.Fprintln(cmd.OutOrStdout(), hex.EncodeToString(h[:]))
			return nil
		},
	}
	cmd.AddCommand(newCmd, hashCmd, keyInitCmd())
	return cmd
}

// newKey makes a server key: the prefix and 256 random bits.
func newKey() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return config.KeyPrefix + base64.RawURLEncoding.EncodeToString(b), nil
}
