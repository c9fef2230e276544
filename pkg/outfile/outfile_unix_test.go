//go:build unix

package outfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// FIFOs, devices, directories and standard streams are refused; /dev/null
// is written as it is.
func TestCheckRefusesWhatIsNoFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	for path, what := range map[string]string{fifo: "a named pipe (FIFO)", "/dev/zero": "a device", dir: "a directory", "/dev/stdout": "a standard stream of this process"} {
		err := WriteFile(path, func(io.Writer) error { t.Errorf("%s written", path); return nil })
		var ne *NotRegularError
		if !errors.As(err, &ne) || ne.What() != what {
			t.Errorf("%s: %v, want it named %s", path, err, what)
		}
	}
	if err := WriteFile(os.DevNull, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }); err != nil {
		t.Errorf("/dev/null: %v", err)
	}
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("/dev/null is no longer a device: %v", err)
	}
}
