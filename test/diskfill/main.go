// Command diskfill fills a file system and frees it again, for the disk-full test in test/e2e
// (storage_full_test.go), which runs it inside the node's container:
//
//	diskfill fill FILE   writes FILE until the file system has no space left, and syncs it
//	diskfill free FILE   removes FILE
package main

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: diskfill fill|free FILE")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "fill":
		err = fill(os.Args[2])
	case "free":
		err = os.Remove(os.Args[2])
	default:
		err = fmt.Errorf("unknown command %q: want fill or free", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "diskfill:", err)
		os.Exit(1)
	}
}

// fill writes ever smaller blocks until not even one byte fits.
func fill(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	total := 0
	for size := 1 << 20; size > 0; size /= 2 {
		block := make([]byte, size)
		for {
			n, err := f.Write(block)
			total += n
			if errors.Is(err, syscall.ENOSPC) {
				break
			}
			if err != nil {
				return err
			}
		}
	}
	if err := f.Sync(); err != nil && !errors.Is(err, syscall.ENOSPC) {
		return err
	}
	fmt.Printf("wrote %d bytes to %s: the file system is full\n", total, path)
	return nil
}
