//go:build race

package sqp

// raceEnabled shrinks the scale test under the race detector, which slows
// the dense QP loops about tenfold.
const raceEnabled = true
