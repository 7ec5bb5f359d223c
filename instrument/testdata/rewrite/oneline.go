package oneline

func f() {}

func g() error { return nil }

func (T) h() {}

type T struct{}

func empty() {
}
