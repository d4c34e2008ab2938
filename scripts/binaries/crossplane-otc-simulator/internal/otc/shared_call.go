package otc

import (
	"context"
	"sync"
)

// sharedCall lets concurrent callers share one run of an expensive call (an
// IAM token request, project discovery) instead of each starting its own.
// Every caller waits with its own context; the run itself is detached from
// any single caller, so one reconcile giving up does not fail the others,
// and it is cancelled only when every caller waiting for it has given up.
// Results are not kept: the caller caches what should be cached.
type sharedCall[T any] struct {
	mu      sync.Mutex
	current *flight[T]
}

type flight[T any] struct {
	done    chan struct{}
	value   T
	err     error
	waiters int
	cancel  context.CancelFunc
}

// do returns the result of the run in progress, or of a new run of fn.
func (s *sharedCall[T]) do(ctx context.Context, fn func(context.Context) (T, error)) (T, error) {
	s.mu.Lock()
	f := s.current
	if f == nil {
		// WithoutCancel keeps the caller's values (loggers, traces) but not its deadline.
		runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		f = &flight[T]{done: make(chan struct{}), cancel: cancel}
		s.current = f
		go s.run(f, runCtx, fn)
	}
	f.waiters++
	s.mu.Unlock()

	select {
	case <-f.done:
		s.mu.Lock()
		f.waiters--
		s.mu.Unlock()
		return f.value, f.err
	case <-ctx.Done():
		s.mu.Lock()
		f.waiters--
		if f.waiters == 0 {
			// Nobody wants the answer any more; a later caller starts afresh.
			f.cancel()
			if s.current == f {
				s.current = nil
			}
		}
		s.mu.Unlock()
		var zero T
		return zero, ctx.Err()
	}
}

func (s *sharedCall[T]) run(f *flight[T], ctx context.Context, fn func(context.Context) (T, error)) {
	value, err := fn(ctx)
	f.cancel()
	s.mu.Lock()
	f.value, f.err = value, err
	if s.current == f {
		s.current = nil
	}
	s.mu.Unlock()
	close(f.done)
}
