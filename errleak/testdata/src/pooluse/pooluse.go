package pooluse

import "pool"

// A [[leak.resource]] of atomicheck.toml: Get needs a Put.
func leak(p *pool.Pool) error {
	c, err := p.Get() // want `pool connection from \(\*pool.Pool\).Get is not released \(pool.Put\) on the path to the return at line 12`
	if err != nil {
		return err
	}
	if err := c.Send(); err != nil {
		return err
	}
	pool.Put(c)
	return nil
}

func put(p *pool.Pool) error {
	c, err := p.Get()
	if err != nil {
		return err
	}
	defer pool.Put(c)
	return c.Send()
}
