package lossyfs

import (
	"slices"
	"testing"
)

func TestStaleMountsAreThoseOfDeadProcesses(t *testing.T) {
	info := `36 35 98:0 / /mnt1 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
100 29 0:50 / /tmp/a\040b/mnt rw,nosuid,nodev,relatime - fuse.lossyfs lossyfs.111 rw,user_id=0,group_id=0
101 29 0:51 / /tmp/live/mnt rw,nosuid,nodev,relatime - fuse.lossyfs lossyfs.222 rw,user_id=0,group_id=0
102 29 0:52 / /tmp/other rw,nosuid,nodev,relatime - fuse.sshfs host:/ rw
`
	got := staleMounts(info, func(pid int) bool { return pid == 222 })
	if want := []staleMount{{dir: "/tmp/a b/mnt", conn: "50"}}; !slices.Equal(got, want) {
		t.Fatalf("stale mounts %q, want %q", got, want)
	}
}
