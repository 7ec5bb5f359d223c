package m

import (
	"errors"
	"net"
	"os"
	"os/exec"
)

type Log struct {
	file      *os.File
	path      string
	lastIndex int
}

// Append writes through the log's file, then advances its index: the
// write is told to the runtime with the file.
func (l *Log) Append(data []byte) error {
	if _, err := l.file.Write(data); err != nil {
		return err
	}
	l.lastIndex++
	return l.file.Sync()
}

// Rotate names the paths it changes where they can be read again.
func (l *Log) Rotate(next string) error {
	if err := os.Rename(l.path, next); err != nil {
		return err
	}
	os.Remove(l.path + ".tmp")
	return os.WriteFile("index", nil, 0o666)
}

// Open creates a file only with O_CREATE: the read-only open is no write.
func Open(name string, create bool) (*os.File, error) {
	if !create {
		return os.OpenFile(name, os.O_RDONLY, 0)
	}
	return os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o666)
}

func Send(c net.Conn, cmd *exec.Cmd, b []byte) error {
	if _, err := c.Write(b); err != nil {
		return err
	}
	if b == nil {
		return errors.New("empty")
	}
	return cmd.Run()
}
