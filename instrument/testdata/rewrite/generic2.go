package generic2

import "errors"

type Pair[K comparable, V any] struct {
	keys []K
	vals map[K]V
}

func (p *Pair[K, V]) Set(k K, v V) error {
	if p.vals == nil {
		return errors.New("nil map")
	}
	p.keys = append(p.keys, k)
	p.vals[k] = v
	return nil
}

func (p Pair[K, V]) Get(k K) (V, bool) {
	v, ok := p.vals[k]
	return v, ok
}

func (p *Pair[_, V]) Values() []V {
	var out []V
	for _, v := range p.vals {
		out = append(out, v)
	}
	return out
}

func Swap[K comparable, V comparable](p *Pair[K, V]) (*Pair[V, K], error) {
	q := &Pair[V, K]{vals: map[V]K{}}
	for k, v := range p.vals {
		if err := q.Set(v, k); err != nil {
			return nil, err
		}
	}
	return q, nil
}
