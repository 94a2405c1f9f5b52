// Package lossyfs is a test filesystem that forgets what was not fsynced: a FUSE pass-through
// mount over a backing directory that keeps, beside every change it passes on, what is needed
// to take that change back. A file's data (writes, truncations) stays pending until the file is
// fsynced; a directory entry made or removed (create, mkdir, rename, unlink, rmdir) stays
// pending until its directory is fsynced, as POSIX allows a power cut to lose them. Cut
// unmounts, takes back everything still pending (or, torn, keeps a pending write only up to a
// page boundary), says what it dropped, file by file, and mounts the backing directory again:
// what the next process finds is what a machine that lost power would have kept. A mount can
// also record its operations (RecordTo), and CrashState replays a prefix of them to make the
// state a power cut at any fsync would have left.
//
// See DESIGN.md in this directory for how the pending state is kept and taken back.
package lossyfs
