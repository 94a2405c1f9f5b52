package loopback

import (
	"fmt"
	"os"
)

// ephemeralRangeFile is where Linux keeps the range of ports it hands out by itself.
const ephemeralRangeFile = "/proc/sys/net/ipv4/ip_local_port_range"

// ephemeralRange is the range of ports the kernel hands out by itself (to the local end of a
// connection, to a listener on port 0), both ends included. Where it cannot be read, it is
// 32768-65535: Linux's default and the IANA range (BSD, macOS) together.
func ephemeralRange() (lo, hi int) {
	data, err := os.ReadFile(ephemeralRangeFile)
	if err == nil {
		if _, err := fmt.Sscan(string(data), &lo, &hi); err == nil && 0 < lo && lo <= hi && hi <= 65535 {
			return lo, hi
		}
	}
	return 32768, 65535
}
