// Package pool hands out connections that go back with Put.
package pool

type Conn struct{}

func (*Conn) Send() error { return nil }

type Pool struct{}

func (*Pool) Get() (*Conn, error) { return &Conn{}, nil }

func Put(*Conn) {}
