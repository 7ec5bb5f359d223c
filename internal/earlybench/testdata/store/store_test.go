package store

import (
	"os"
	"strconv"
	"testing"
)

// TestLong fills the store (every injection point is reached in Fill, at
// the start), then sums it EARLY_ROUNDS times.
func TestLong(t *testing.T) {
	rounds, _ := strconv.Atoi(os.Getenv("EARLY_ROUNDS"))
	s := New()
	s.Fill(0, 1000)
	if s.Sum(rounds) < 0 {
		t.Fatal("negative sum")
	}
}
