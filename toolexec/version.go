package toolexec

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// VersionLine appends atomicx's identity to the line a Go tool prints for
// -V=full. The go command hashes that line into the key of every action
// that runs the tool, so the suffix makes the build cache tell apart builds
// made by another atomicx binary or under another policy, and reuse
// everything when neither changed — without -a.
//
// Release toolchains print "compile version go1.26.8 [extra]" and the whole
// line is the key. Development toolchains print
// "compile version devel ... buildID=CONTENTID" and only the content ID part
// of the last field is used, so there the suffix is folded into that field.
func VersionLine(toolLine, identity string) (string, error) {
	line := strings.TrimRight(toolLine, "\r\n")
	f := strings.Fields(line)
	if len(f) < 3 || f[1] != "version" {
		return "", fmt.Errorf("unexpected -V=full output from the Go tool: %q", line)
	}
	if !strings.Contains(f[2], "devel") {
		return line + " atomicx:" + identity + "\n", nil
	}
	last := f[len(f)-1]
	if !strings.HasPrefix(last, "buildID=") {
		return "", fmt.Errorf("unexpected -V=full output from a development Go tool: %q", line)
	}
	// The go command keys on the part after the last '/', or on the whole
	// value when there is none; replace it with a hash of itself and our
	// identity, keeping the shape of the field.
	id := strings.TrimPrefix(last, "buildID=")
	prefix, content := "", id
	if i := strings.LastIndex(id, "/"); i >= 0 {
		prefix, content = id[:i+1], id[i+1:]
	}
	sum := sha256.Sum256([]byte(content + "\x00" + identity))
	f[len(f)-1] = "buildID=" + prefix + hex.EncodeToString(sum[:15])
	return strings.Join(f[:len(f)-1], " ") + " atomicx:" + identity + " " + f[len(f)-1] + "\n", nil
}
