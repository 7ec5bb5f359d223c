package errleak

import "github.com/atomicx/atomicx/policy"

// MaskRelease is how a failing masked call releases a resource it
// acquired: by calling Method on it, or on its Field.
type MaskRelease struct {
	Resource string   // what it is ("file")
	Field    string   // "Body" for an HTTP response; "" for the resource itself
	Method   string   // "Close", "Stop", "Rollback"
	Others   []string // the resource's other release methods: "Commit", "Body.Close"
}

// MaskReleases returns, by acquiring function, the releases that a mask
// build runs after rolling back a failed call: the [[leak.resource]]
// tables of the policy (user) that say on_rollback = true, then the
// standard library's set, whose releases are all safe to repeat. Only
// resources that are a result of the acquiring call and that a method
// releases qualify: locks are the lock idiom's business, a process's Wait
// blocks, and a function or a call release (signal.Stop, a cancel
// function) has no address the rollback can look for. A transaction is
// rolled back rather than committed.
func MaskReleases(user []policy.LeakResource) map[string]MaskRelease {
	out := map[string]MaskRelease{}
	all := make([]Resource, 0, len(user)+len(builtin))
	for _, r := range user {
		if !r.OnRollback {
			continue
		}
		all = append(all, Resource{Name: r.Name, Acquire: r.Acquire, Release: r.Release})
	}
	all = append(all, builtin...)
	for _, r := range all {
		if kind, _ := valueRef(r.value); kind != "" {
			continue
		}
		rel, ok := maskRelease(r.Release)
		if !ok {
			continue
		}
		rel.Resource = r.Name
		for _, a := range r.Acquire {
			if _, dup := out[a]; !dup { // the policy's tables come first
				out[a] = rel
			}
		}
	}
	return out
}

func maskRelease(releases []string) (MaskRelease, bool) {
	chosen := -1
	for i, s := range releases {
		r := parseRelease(s)
		if r.call || r.fn != "" {
			continue
		}
		if chosen < 0 || r.method == "Rollback" {
			chosen = i
		}
	}
	if chosen < 0 {
		return MaskRelease{}, false
	}
	r := parseRelease(releases[chosen])
	m := MaskRelease{Field: r.field, Method: r.method}
	for i, s := range releases {
		if i != chosen {
			m.Others = append(m.Others, s)
		}
	}
	return m, true
}

// Borrows reports whether the function (types.Func.FullName) only
// borrows a resource passed to it, keeping no reference to it.
func Borrows(fullName string) bool { return borrowers[fullName] }
