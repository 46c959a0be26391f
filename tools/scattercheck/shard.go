package main

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// Sharding (-shard i/n): the gate's work split between n jobs. Every case
// has an id that does not depend on what else runs ("spec/<name>",
// "fixture/<profile>/<op>/<case>", "random/<op>/<dtype>",
// "property/<name>"), and each random pair and property draws from a seed
// derived from -seed and its own name, so a case is run by exactly one
// shard — the one its id hashes to — and runs there exactly as in an
// unsharded run. The n shards' reports, joined by scattercheck merge,
// hold the cases of one unsharded run.

// shard is one part of n (index 1..n); the zero value is the whole run.
type shard struct {
	index, count int
}

// parseShard reads "i/n" (1 <= i <= n); "" is the whole run.
func parseShard(s string) (shard, error) {
	if s == "" {
		return shard{}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return shard{}, fmt.Errorf("-shard %q: want i/n with 1 <= i <= n, e.g. 2/4", s)
	}
	return shard{index: i, count: n}, nil
}

// String is "i/n", or "" for the whole run.
func (s shard) String() string {
	if s.count <= 1 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.index, s.count)
}

// has says whether the case with this id is this shard's.
func (s shard) has(id string) bool {
	if s.count <= 1 {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(id))
	return int(h.Sum64()%uint64(s.count)) == s.index-1
}
