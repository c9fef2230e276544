package cmd

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/methods"
)

// memFlagHelp documents --mem-mb.
const memFlagHelp = "bound on the method's estimated peak memory in MB; a method that would need more is refused before it starts, naming the largest n it can handle (0 = half of the RAM in " + experiment.MemInfoPath + "; -1 = no bound)"

// memoryError words a refusal of methods.CheckMemory (a run whose estimated
// peak exceeds --mem-mb, given as flagMB) as a usage error, exit code 2:
// nothing has run, and the remedy is on the command line (a larger
// --mem-mb, fewer rows, fewer --workers or a smaller --cache-mb). Other
// errors are returned as they are.
func memoryError(flagMB int, err error) error {
	var me *methods.MemoryError
	if errors.As(err, &me) {
		bound := fmt.Sprintf("--mem-mb %d", flagMB)
		if flagMB == 0 {
			bound = "the default --mem-mb, half of the RAM: " + mbString(me.Max)
		}
		fit := fmt.Sprintf("it can handle at most %d training rows within it", me.MaxN)
		if me.MaxN == 0 {
			fit = "no data fits within it (the runtime alone takes about 32 MB)"
		}
		return usageErrorf("tune: %s needs about %s for %d training rows × %d features, more than %s; %s. Raise --mem-mb, or use fewer rows (--test-fraction), fewer --workers or a smaller --cache-mb",
			me.Method, mbString(me.Need), me.N, me.D, bound, fit)
	}
	return err
}

func mbString(b int64) string { return strconv.FormatInt((b+(1<<20)-1)>>20, 10) + " MB" }
