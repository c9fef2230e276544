//go:build race

package methods

// tlRace shrinks TestTwoLevelTune under the race detector, which slows the
// SQP's dense QP loops about tenfold.
const tlRace = true
