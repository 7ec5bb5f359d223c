package campaign

import (
	"io/fs"
	"syscall"
)

// stampOf reads the inode and the change time, which no test can set
// back.
func stampOf(info fs.FileInfo) fileStamp {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStamp{}
	}
	return fileStamp{ino: st.Ino, ctime: st.Ctim.Nano()}
}
