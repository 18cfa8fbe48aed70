package main

import (
	"github.com/spf13/cobra"
)

func tryCmd() *cobra.Command {
	return &cobra.Command{Use: "try FILE", Hidden: true}
}
