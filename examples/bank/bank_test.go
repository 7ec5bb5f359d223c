package bank

import (
	"errors"
	"testing"
)

func TestTransfer(t *testing.T) {
	b := New(map[string]int{"ann": 100, "bob": 20})
	if err := b.Transfer("ann", "bob", 30); err != nil {
		t.Fatal(err)
	}
	if n, _ := b.Balance("bob"); n != 50 {
		t.Fatalf("bob has %d, want 50", n)
	}
}

func TestTransferToUnknownAccount(t *testing.T) {
	b := New(map[string]int{"ann": 100})
	if err := b.Transfer("ann", "carl", 30); !errors.Is(err, ErrNoAccount) {
		t.Fatalf("got %v, want ErrNoAccount", err)
	}
}

func TestOverdraw(t *testing.T) {
	b := New(map[string]int{"ann": 10, "bob": 0})
	if err := b.Transfer("ann", "bob", 30); !errors.Is(err, ErrInsufficient) {
		t.Fatalf("got %v, want ErrInsufficient", err)
	}
}
