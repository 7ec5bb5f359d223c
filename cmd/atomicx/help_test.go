package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/atomicx/atomicx/docs"
)

// TestHelpTopics: atomicx help TOPIC prints each page of the
// documentation as it is, the usage names every topic, and an unknown
// topic is refused with the list.
func TestHelpTopics(t *testing.T) {
	for _, topic := range helpTopics() {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"help", topic}, &stdout, &stderr); code != 0 || stdout.Len() == 0 {
			t.Errorf("atomicx help %s: exit %d, %d bytes, stderr %q", topic, code, stdout.Len(), stderr.String())
		}
		if page, ok := docs.Page(topic); ok && stdout.String() != page {
			t.Errorf("atomicx help %s is not docs/%s.md", topic, topic)
		}
		if !strings.Contains(usage, topic) {
			t.Errorf("the usage does not name the topic %s", topic)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"help", "nope"}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "comp, detect, environment, handlers, how-it-works, masking, perturb, policy, reports, vet, env") {
		t.Errorf("atomicx help nope: exit %d, stderr %q", code, stderr.String())
	}
}
