package m

import "errors"

// Flag's package is at language version go1.12: no generated generic
// checkpoint, the reflective one.
type Flag struct{ on bool }

func (f *Flag) Set(s string) error {
	f.on = s == "true"
	if s != "true" && s != "false" {
		return errors.New("not a bool")
	}
	return nil
}
