package methods

import (
	"context"
	"testing"
	"time"
)

// BenchmarkBOHeart100 is one bo tuning on 100 rows of heart with the
// default budget (30 evaluations): the case of issue 35 item 2b.
func BenchmarkBOHeart100(b *testing.B) {
	d := heartHead(b, 100)
	var gpTime time.Duration
	for b.Loop() {
		s := BOSettings{Common: Common{Seed: 3, Workers: 1}}
		res, err := s.tune(context.Background(), d)
		if err != nil {
			b.Fatal(err)
		}
		_ = res
	}
	_ = gpTime
}
