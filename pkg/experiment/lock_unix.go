//go:build unix

package experiment

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// lockFile takes an exclusive advisory lock (flock) on f without waiting; it
// is released when f is closed or the process ends, however it ends (kill -9
// included). When another process holds it, the error is a *LockedError
// with the holder's pid where /proc/locks names it.
func lockFile(f *os.File, path string) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		return &LockedError{Path: path, PID: lockHolder(f)}
	case errors.Is(err, syscall.ENOTSUP), errors.Is(err, syscall.EINVAL):
		return nil // a file system without locks: write unguarded, as before
	}
	return fmt.Errorf("lock %s: %w", path, err)
}

// lockHolder returns the pid of the process holding a flock on f, read from
// Linux's /proc/locks (0 when it cannot be told).
func lockHolder(f *os.File) int {
	st, err := f.Stat()
	if err != nil {
		return 0
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0
	}
	data, err := os.ReadFile("/proc/locks")
	if err != nil {
		return 0
	}
	dev := uint64(sys.Dev)
	major := (dev>>8)&0xfff | (dev>>32)&^0xfff
	minor := dev&0xff | (dev>>12)&^0xff
	want := fmt.Sprintf("%02x:%02x:%d", major, minor, sys.Ino)
	pid := 0
	for _, line := range strings.Split(string(data), "\n") {
		// "1: FLOCK  ADVISORY  WRITE 4055 08:01:1234 0 EOF"; waiters
		// have "->" after the number.
		f := strings.Fields(line)
		if len(f) < 6 || f[1] != "FLOCK" || f[5] != want {
			continue
		}
		p, err := strconv.Atoi(f[4])
		if err != nil || (pid != 0 && p != pid) {
			return 0
		}
		pid = p
	}
	return pid
}
