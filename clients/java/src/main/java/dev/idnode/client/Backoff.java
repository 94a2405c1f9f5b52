package dev.idnode.client;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The wait between two rounds of attempts of one call, a round being one attempt on each node:
 * {@code initial} before the second round, times {@code multiplier} for each further one, at
 * most {@code max}, each spread by ±{@code jitter} (a fraction) so that many clients do not retry
 * in step. Within a round the next node is tried at once. {@code maxAttempts > 0} caps the
 * attempts of one call; 0 leaves only the call's deadline.
 *
 * @param initial the wait before the second round, positive
 * @param max the longest wait, at least {@code initial}
 * @param multiplier the growth per round, at least 1
 * @param jitter the spread, 0 to 1
 * @param maxAttempts the cap on attempts, 0 for none
 */
public record Backoff(Duration initial, Duration max, double multiplier, double jitter, int maxAttempts) {
  /** 25 ms doubling to 1 s, ±20%, no cap: what every idnode client uses. */
  public static final Backoff DEFAULT = new Backoff(Duration.ofMillis(25), Duration.ofSeconds(1), 2, 0.2, 0);

  /** Checks every field; the message names the one out of range. */
  public Backoff {
    if (initial == null || initial.isNegative() || initial.isZero()) {
      throw new IllegalArgumentException("Backoff initial must be positive, got " + initial);
    }
    if (max == null || max.compareTo(initial) < 0) {
      throw new IllegalArgumentException("Backoff max must be at least initial (" + initial + "), got " + max);
    }
    if (!(multiplier >= 1) || Double.isInfinite(multiplier)) {
      throw new IllegalArgumentException("Backoff multiplier must be a finite number of at least 1, got " + multiplier);
    }
    if (!(jitter >= 0 && jitter <= 1)) {
      throw new IllegalArgumentException("Backoff jitter must be within 0..1, got " + jitter);
    }
    if (maxAttempts < 0) {
      throw new IllegalArgumentException("Backoff maxAttempts must be 0 (no cap) or more, got " + maxAttempts);
    }
  }

  /** The wait before round {@code round} (1 is the second round), jitter applied, in nanoseconds. */
  long delayNanos(int round) {
    double d = initial.toNanos() * Math.pow(multiplier, Math.max(0, round - 1));
    d = Math.min(d, max.toNanos());
    if (jitter > 0) {
      d *= 1 + jitter * (2 * ThreadLocalRandom.current().nextDouble() - 1);
    }
    return (long) d;
  }
}
