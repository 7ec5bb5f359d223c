package leaks

import (
	"os"
	"os/signal"
)

// signal.Notify registers the channel until signal.Stop: an error return
// that skips Stop leaves it registered.
func notifyLeak() error {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt) // want `signal notification from signal.Notify is not released \(os/signal.Stop\) on the path to the return at line 14`
	if err := notifySetup(); err != nil {
		return err
	}
	defer signal.Stop(ch)
	<-ch
	return nil
}

func notifyStopped() error {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt)
	if err := notifySetup(); err != nil {
		signal.Stop(ch)
		return err
	}
	defer signal.Stop(ch)
	<-ch
	return nil
}

// A successful return keeps the registration: main's, or a function
// whose caller now waits on the channel.
func notifyKept(ch chan os.Signal) error {
	signal.Notify(ch, os.Interrupt)
	return nil
}

// A goroutine that reads the channel owns it.
func notifyHandedOff() error {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt)
	go func() { <-ch }()
	return notifySetup()
}

func notifySetup() error { return nil }
