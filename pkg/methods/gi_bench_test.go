package methods

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkGIPath runs 10 steps of gi (param C, C = 1) on 80 heart rows
// widened to d columns (giWide), by the full path and by the diagonal path:
// the measurement behind giDiagPathMinDim.
func BenchmarkGIPath(b *testing.B) {
	for _, d := range []int{13, 32, 64, 128, 256, 512} {
		ds := giWide(b, 80, d)
		for _, path := range []int{giPathFull, giPathDiag} {
			name := "full"
			if path == giPathDiag {
				name = "diag"
			}
			b.Run(fmt.Sprintf("d=%d/%s", d, name), func(b *testing.B) {
				s := GISettings{Common: Common{C: 1}, Param: "C", Steps: 10, Tol: -1, path: path}
				for i := 0; i < b.N; i++ {
					if _, _, err := s.run(context.Background(), ds); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
