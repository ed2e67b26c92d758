// DCSO's Go bloom library in-process, the same work as bench/embed_bench.c, for
// bench/embed_bench.sh (GOPATH=/usr/share/gocode GO111MODULE=off go run dcso_embed.go ...):
//
//	dcso_embed MEMBERS N P QUERIES [REPS]
//
// Initialize(N, P), Add every key of MEMBERS, then Check every key of QUERIES ([]byte),
// REPS times (default 7) after a warm-up: median keys/s of the thread's CPU time (the goroutine
// is locked to its thread; getrusage RUSAGE_THREAD), and of wall-clock time (wall_keys_per_s).
package main

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"syscall"
	"time"

	"github.com/DCSO/bloom"
)

func lines(path string) [][]byte {
	b, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	out := bytes.Split(b, []byte("\n"))
	return out[:len(out)-1]
}

func threadCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		panic(err)
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)*1e-6
}

func main() {
	runtime.LockOSThread()
	members := lines(os.Args[1])
	n, _ := strconv.ParseUint(os.Args[2], 10, 64)
	p, _ := strconv.ParseFloat(os.Args[3], 64)
	queries := lines(os.Args[4])
	reps := 7
	if len(os.Args) > 5 {
		reps, _ = strconv.Atoi(os.Args[5])
	}
	f := bloom.Initialize(n, p)
	for _, k := range members {
		f.Add(k)
	}
	present := 0
	for _, k := range queries {
		if f.Check(k) {
			present++
		}
	}
	t := make([]float64, reps)
	w := make([]float64, reps)
	for r := 0; r < reps; r++ {
		present = 0
		w0, t0 := time.Now(), threadCPU()
		for _, k := range queries {
			if f.Check(k) {
				present++
			}
		}
		t[r] = threadCPU() - t0
		w[r] = time.Since(w0).Seconds()
	}
	sort.Float64s(t)
	sort.Float64s(w)
	med := t[reps/2]
	q := float64(len(queries))
	fmt.Printf("keys=%d keys_per_s=%.0f ns_per_key=%.1f present=%d wall_keys_per_s=%.0f\n",
		len(queries), q/med, med*1e9/q, present, q/w[reps/2])
}
