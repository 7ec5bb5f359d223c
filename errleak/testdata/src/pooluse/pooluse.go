package pooluse

import "pool"

// A [[leak.resource]] of atomicheck.toml: Get needs a Put.
func leak(p *pool.Pool) error { // want leak:`borrows param 0`
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

func put(p *pool.Pool) error { // want put:`borrows param 0`
	c, err := p.Get()
	if err != nil {
		return err
	}
	defer pool.Put(c)
	return c.Send()
}

func take(p *pool.Pool) error { // want take:`borrows param 0`
	c, err := p.Take() // want `taken connection from \(\*pool.Pool\).Take is not released \(\(\*pool.Pool\).Give\) on the path to the return at line 33`
	if err != nil {
		return err
	}
	if err := c.Send(); err != nil {
		return err
	}
	p.Give(c)
	return nil
}

func give(p *pool.Pool) error { // want give:`borrows param 0`
	c, err := p.Take()
	if err != nil {
		return err
	}
	defer p.Give(c)
	return c.Send()
}
