package comp_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/atomicx/atomicx/comp"
)

// writeFile writes data to a temporary file that it renames over name,
// so that name has either its old contents or the new ones, and no
// temporary file is left behind whichever step fails.
func writeFile(name string, data []byte) (err error) {
	s := comp.New()
	defer s.RunJoin(&err)

	f, err := os.CreateTemp(filepath.Dir(name), filepath.Base(name)+".*")
	if err != nil {
		return err
	}
	s.PushUndo(func() error { return os.Remove(f.Name()) })
	closeFile := s.Push(f.Close)

	if _, err := f.Write(data); err != nil {
		return err // closes and removes the temporary file
	}
	if err := closeFile.Run(); err != nil {
		return err // removes it
	}
	if err := os.Rename(f.Name(), name); err != nil {
		return err // removes it
	}
	s.Commit() // keeps it, under its new name
	return nil
}

func Example() {
	dir, err := os.MkdirTemp("", "comp-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	// The rename fails: name is a directory.
	name := filepath.Join(dir, "config")
	if err := os.Mkdir(name, 0o777); err != nil {
		panic(err)
	}
	fmt.Println("failed:", writeFile(name, []byte("v1")) != nil)
	entries, _ := os.ReadDir(dir)
	fmt.Println("files:", len(entries))

	// It succeeds.
	os.Remove(name)
	fmt.Println("failed:", writeFile(name, []byte("v2")) != nil)
	data, _ := os.ReadFile(name)
	entries, _ = os.ReadDir(dir)
	fmt.Printf("files: %d, %s\n", len(entries), data)
	// Output:
	// failed: true
	// files: 1
	// failed: false
	// files: 1, v2
}

func ExampleStack_Commit() {
	transfer := func(fail bool) (err error) {
		s := comp.New()
		defer s.RunJoin(&err)

		fmt.Println("lock accounts")
		s.Push(func() error { fmt.Println("unlock accounts"); return nil })
		fmt.Println("debit A")
		s.PushUndo(func() error { fmt.Println("credit A back"); return nil })
		if fail {
			return errors.New("B is closed")
		}
		fmt.Println("credit B")
		s.Commit()
		return nil
	}
	fmt.Println("error:", transfer(true))
	fmt.Println("error:", transfer(false))
	// Output:
	// lock accounts
	// debit A
	// credit A back
	// unlock accounts
	// error: B is closed
	// lock accounts
	// debit A
	// credit B
	// unlock accounts
	// error: <nil>
}

func ExampleAcquire() {
	s := comp.New()
	defer s.Run()

	// The file is closed when s runs; a failed Open pushes nothing.
	f, err := comp.Acquire(s, (*os.File).Close)(os.Open(os.DevNull))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("opened:", f != nil)
	_, err = comp.Acquire(s, (*os.File).Close)(os.Open(filepath.Join(os.DevNull, "nothing")))
	fmt.Println("second open failed:", err != nil)
	// Output:
	// opened: true
	// second open failed: true
}

func ExampleWithStack() {
	// The handler of a request gives it a stack, which the functions that
	// serve it find in its context.
	handle := func(ctx context.Context) error {
		s := comp.New()
		defer s.Run()
		return serve(comp.WithStack(ctx, s))
	}
	fmt.Println(handle(context.Background()))
	// Output:
	// reserve a seat
	// release the seat
	// <nil>
}

func serve(ctx context.Context) error {
	s := comp.FromContext(ctx)
	fmt.Println("reserve a seat")
	s.Push(func() error { fmt.Println("release the seat"); return nil })
	return nil
}

func ExampleSetLeakHandler() {
	leaks := make(chan comp.Leak, 1)
	previous := comp.SetLeakHandler(func(l comp.Leak) { leaks <- l })
	defer comp.SetLeakHandler(previous)

	forgetRun()
	// The report comes once the garbage collector has found the stack.
	for {
		runtime.GC()
		select {
		case l := <-leaks:
			fmt.Println(l.Function, l.Actions)
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
	// Output:
	// github.com/atomicx/atomicx/comp_test.forgetRun 1
}

func forgetRun() {
	s := comp.New() // no defer s.Run()
	s.Push(func() error { return nil })
}
