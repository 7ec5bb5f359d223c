// Package bank is a small example of failure non-atomic methods, the kind
// atomicx finds: methods that return an error after having changed part of
// their receiver's state.
package bank

import (
	"errors"
	"fmt"
)

var (
	ErrNoAccount    = errors.New("no such account")
	ErrInsufficient = errors.New("insufficient funds")
)

// Account is one account of the bank.
type Account struct {
	Owner   string
	Balance int
	History []int
}

// Bank holds accounts by owner and a journal of what happened.
type Bank struct {
	accounts map[string]*Account
	journal  []string
}

// New returns a bank with the given accounts and opening balances.
func New(balances map[string]int) *Bank {
	b := &Bank{accounts: map[string]*Account{}}
	for owner, balance := range balances {
		b.accounts[owner] = &Account{Owner: owner, Balance: balance}
	}
	return b
}

// Balance returns the balance of an account.
func (b *Bank) Balance(owner string) (int, error) {
	a, ok := b.accounts[owner]
	if !ok {
		return 0, ErrNoAccount
	}
	return a.Balance, nil
}

// Withdraw takes amount from an account. It is failure atomic: it checks
// before it changes anything.
func (a *Account) Withdraw(amount int) error {
	if amount > a.Balance {
		return fmt.Errorf("withdraw %d from %s: %w", amount, a.Owner, ErrInsufficient)
	}
	a.Balance -= amount
	a.History = append(a.History, -amount)
	return nil
}

// Deposit adds amount to an account.
func (a *Account) Deposit(amount int) error {
	if amount <= 0 {
		return fmt.Errorf("deposit %d: amount must be positive", amount)
	}
	a.Balance += amount
	a.History = append(a.History, amount)
	return nil
}

// Transfer moves amount from one account to another. It is not failure
// atomic: when the destination does not exist, or the deposit fails, the
// money has already left the source account and the journal says so.
func (b *Bank) Transfer(from, to string, amount int) error {
	b.journal = append(b.journal, fmt.Sprintf("transfer %d %s->%s", amount, from, to))
	src, ok := b.accounts[from]
	if !ok {
		return ErrNoAccount
	}
	if err := src.Withdraw(amount); err != nil {
		return err
	}
	dst, ok := b.accounts[to]
	if !ok {
		return fmt.Errorf("transfer to %s: %w", to, ErrNoAccount)
	}
	return dst.Deposit(amount)
}
