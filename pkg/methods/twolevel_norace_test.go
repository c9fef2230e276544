//go:build !race

package methods

const tlRace = false
