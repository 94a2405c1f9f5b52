package dev.idnode.client;

import java.util.List;
import java.util.stream.LongStream;

/**
 * Values {@code first..last} of an identity counter, except {@code skipped}: values someone
 * claimed as {@code name/N}, which are not part of the answer.
 *
 * @param first the first value
 * @param last the last value
 * @param skipped claimed values between them, ascending
 */
public record IdentityBlock(long first, long last, List<Long> skipped) {
  /** Copies skipped, so the block cannot change under its holder. */
  public IdentityBlock {
    skipped = List.copyOf(skipped);
  }

  /** The values handed out, ascending: first..last without the skipped ones. */
  public LongStream values() {
    return LongStream.rangeClosed(first, last).filter(v -> !skipped.contains(v));
  }
}
