package comp

import "context"

type contextKey struct{}

// WithStack returns a copy of ctx that carries s, so that the functions
// that serve one request can push what they acquire onto the request's
// stack, which the request's handler runs when it is done.
func WithStack(ctx context.Context, s *Stack) context.Context {
	return context.WithValue(ctx, contextKey{}, s)
}

// FromContext returns the Stack that ctx carries, or nil if it carries
// none.
func FromContext(ctx context.Context) *Stack {
	s, _ := ctx.Value(contextKey{}).(*Stack)
	return s
}
