package dev.idnode.client;

/**
 * A backup written by {@link IdnodeClient#backup}.
 *
 * @param leader the tag of the leader that took it
 * @param index the Raft index it covers
 * @param bytes how many bytes were written
 */
public record BackupInfo(String leader, long index, long bytes) {}
