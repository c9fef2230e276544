//go:build !race

package sqp

const raceEnabled = false
