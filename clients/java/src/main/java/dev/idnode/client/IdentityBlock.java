package dev.idnode.client;

import java.util.List;
import java.util.NoSuchElementException;
import java.util.PrimitiveIterator;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.LongStream;
import java.util.stream.StreamSupport;

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
    return StreamSupport.longStream(Spliterators.spliteratorUnknownSize(valueIterator(),
        Spliterator.ORDERED | Spliterator.SORTED | Spliterator.DISTINCT | Spliterator.NONNULL), false);
  }

  /**
   * The values of {@link #values()}, walked beside the ascending skipped list: the fold hands a
   * batch's values out with it on the event loop, one per caller, where a filtered stream cost
   * a lookup in the list and a boxed value each.
   */
  PrimitiveIterator.OfLong valueIterator() {
    return new PrimitiveIterator.OfLong() {
      private long next = first;
      private int skip;

      @Override
      public boolean hasNext() {
        while (next <= last && skip < skipped.size()) {
          long s = skipped.get(skip);
          if (s > next) {
            break;
          }
          skip++;
          if (s == next) {
            next++;
          }
        }
        return next <= last && next >= first;
      }

      @Override
      public long nextLong() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        return next++;
      }
    };
  }
}
