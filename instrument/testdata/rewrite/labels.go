package labels

import "errors"

var errNotFound = errors.New("not found")

// Find uses a labeled loop, labeled break and continue, and a goto.
func Find(grid [][]int, want int) (row, col int, err error) {
	if len(grid) == 0 {
		goto empty
	}
outer:
	for i, r := range grid {
		for j, v := range r {
			if v < 0 {
				continue outer
			}
			if v == want {
				row, col = i, j
				break outer
			}
		}
	}
	if row == 0 && col == 0 && (len(grid[0]) == 0 || grid[0][0] != want) {
		return -1, -1, errNotFound
	}
	return
empty:
	return -1, -1, errors.New("empty grid")
}

// Retry jumps backwards to a label that is a return statement's neighbour.
func Retry(n int) error {
	tries := 0
again:
	tries++
	if tries < n {
		goto again
	}
done:
	return nil
	goto done
}
