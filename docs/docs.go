// Package docs holds atomicx's user documentation: one Markdown page per
// topic, read on the repository's site and printed by atomicx help
// TOPIC, from this one copy.
package docs

import (
	"embed"
	"io/fs"
	"slices"
	"strings"
)

//go:embed *.md
var pages embed.FS

// Page returns the text of topic's page (topic "detect" is detect.md).
func Page(topic string) (string, bool) {
	if topic == "" || strings.ContainsAny(topic, "/.") {
		return "", false
	}
	b, err := pages.ReadFile(topic + ".md")
	return string(b), err == nil
}

// Topics lists the topics of the pages, sorted.
func Topics() []string {
	names, _ := fs.Glob(pages, "*.md")
	for i, n := range names {
		names[i] = strings.TrimSuffix(n, ".md")
	}
	slices.Sort(names)
	return names
}
