// Package outfile writes the files a command makes so that nothing a user
// had is lost: WriteFile writes to a temporary file in the target's
// directory, syncs it and renames it onto the target (then syncs the
// directory), so that a failed or interrupted write (a full disk, a signal)
// leaves the previous file whole and no torn one; Check refuses a target
// that is a FIFO, a socket, a device or a directory, which would block a
// write forever or be replaced; and a Plan of a command's inputs and outputs
// refuses, before any work, an output that is one of its inputs or another
// of its outputs, compared by file identity (device and inode), not by how
// the path is spelt. The results file of compare, appended record by record,
// is not written here (pkg/experiment's FileSink).
package outfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// NotRegularError is an output path that names something other than a
// regular file (or os.DevNull, which throws the output away): a FIFO,
// whose write blocks until a reader comes; a socket; a device; a
// directory; or a standard stream of the process (/dev/stdout).
type NotRegularError struct {
	Path   string
	Mode   os.FileMode
	Stream bool // a standard stream of the process (/dev/stdout, /dev/fd/N)
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a file: give a regular file", e.Path, e.What())
}

// What says what the path is, e.g. "a named pipe (FIFO)".
func (e *NotRegularError) What() string {
	if e.Stream {
		return "a standard stream of this process"
	}
	return Describe(e.Mode)
}

// Describe says what a file of mode is when it is not a regular file:
// "a named pipe (FIFO)", "a socket", "a device" or "a directory".
func Describe(mode os.FileMode) string {
	switch {
	case mode&os.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case mode&os.ModeSocket != 0:
		return "a socket"
	case mode&os.ModeDevice != 0:
		return "a device"
	case mode.IsDir():
		return "a directory"
	}
	return "not a regular file"
}

// isStream reports whether path names a standard stream or descriptor of
// the process: /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N.
func isStream(path string) bool {
	stream := func(p string) bool {
		return p == "/dev/stdout" || p == "/dev/stderr" || p == "/dev/stdin" ||
			strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/proc/")
	}
	p, err := filepath.Abs(path)
	if err != nil || stream(p) {
		return err == nil
	}
	r, err := filepath.EvalSymlinks(p) // a link to one
	return err == nil && stream(r)
}

// Check returns an error when path cannot be an output file: a
// *NotRegularError when it names a FIFO, a socket, a device (but
// os.DevNull), a directory or a standard stream, and the error of its
// directory when that does not exist or is no directory. A path that does
// not exist in an existing directory is fine; so are "" and os.DevNull.
func Check(path string) error {
	if path == "" || path == os.DevNull {
		return nil
	}
	if isStream(path) {
		return &NotRegularError{Path: path, Stream: true}
	}
	st, err := os.Stat(path)
	if err == nil {
		if !st.Mode().IsRegular() {
			return &NotRegularError{Path: path, Mode: st.Mode()}
		}
		return nil
	}
	dir := filepath.Dir(path)
	if target, lerr := os.Readlink(path); lerr == nil { // a dangling link: its target's directory
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		dir = filepath.Dir(target)
	}
	switch dst, err := os.Stat(dir); {
	case err != nil:
		return &DirError{Path: path, Dir: dir, Err: err}
	case !dst.IsDir():
		return &DirError{Path: path, Dir: dir, Err: fmt.Errorf("%s is not a directory", dir)}
	}
	return nil
}

// CheckDir returns an error when dir cannot be a directory of outputs: a
// *DirError when it exists and is not a directory. A path that does not
// exist is fine (it is made when the files are written).
func CheckDir(dir string) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return &DirError{Path: dir, Dir: dir, Err: errors.New("not a directory")}
	}
	return nil
}

// DirError is an output path whose directory does not exist (or is no
// directory): the command would fail after its work, when it saves.
type DirError struct {
	Path, Dir string
	Err       error
}

func (e *DirError) Error() string { return fmt.Sprintf("%s: %v", e.Path, e.Err) }
func (e *DirError) Unwrap() error { return e.Err }

// temps are the temporary files being written, for RemoveTemps.
var temps sync.Map

// RemoveTemps removes the temporary files of writes under way: a command
// that must end at once (a second signal) calls it before it exits.
func RemoveTemps() {
	temps.Range(func(k, _ any) bool {
		os.Remove(k.(string))
		return true
	})
}

// WriteFile writes path with write: to a temporary file in the directory
// of path (of the file it links to, for a symbolic link), flushed, synced,
// given the old file's permissions (0644 for a new one) and renamed onto
// it, and the directory synced. On any failure the temporary file is
// removed and the old file is as it was. A failed write's error names
// path, not the temporary file. os.DevNull is written as it is. The target
// is checked first (Check).
func WriteFile(path string, write func(w io.Writer) error) (err error) {
	if path == os.DevNull {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		err = write(f)
		return errors.Join(err, f.Close())
	}
	if err := Check(path); err != nil {
		return err
	}
	target := path
	if t, err := filepath.EvalSymlinks(path); err == nil {
		target = t
	}
	perm := os.FileMode(0o644)
	if st, err := os.Stat(target); err == nil {
		perm = st.Mode().Perm()
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	tmp := f.Name()
	temps.Store(tmp, true)
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
		temps.Delete(tmp)
	}()
	bw := bufio.NewWriterSize(&pathWriter{f: f, path: path}, 64<<10)
	if err = write(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = f.Chmod(perm); err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = f.Close()
	}
	if err == nil {
		err = os.Rename(tmp, target)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	return syncDir(dir, path)
}

// syncDir syncs dir, so that the rename survives a crash; a file system
// that cannot sync a directory (EINVAL) is not an error.
func syncDir(dir, path string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return fmt.Errorf("write %s: sync directory %s: %w", path, dir, unwrapPath(err))
	}
	return nil
}

// unwrapPath is the cause of an *os.PathError (or *os.LinkError), whose
// path is the temporary file's.
func unwrapPath(err error) error {
	var pe *os.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		return pe.Err
	case errors.As(err, &le):
		return le.Err
	}
	return err
}

// pathWriter writes to the temporary file f, its errors naming path.
type pathWriter struct {
	f    *os.File
	path string
}

func (w *pathWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err != nil {
		err = &os.PathError{Op: "write", Path: w.path, Err: unwrapPath(err)}
	}
	return n, err
}
