package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// procStatus reads VmRSS, VmHWM (peak RSS) in KiB and Threads from /proc/self/status.
func procStatus() (rssKiB, peakKiB, threads int64) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1, -1, -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		switch name {
		case "VmRSS":
			rssKiB = n
		case "VmHWM":
			peakKiB = n
		case "Threads":
			threads = n
		}
	}
	return rssKiB, peakKiB, threads
}

// cpuUsed is this process's CPU time so far (user + system, every thread), and its
// context switches (voluntary and involuntary).
func cpuUsed() (time.Duration, int64) {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), ru.Nvcsw + ru.Nivcsw
}
