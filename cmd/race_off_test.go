//go:build !race

package cmd

const raceBuild = false
