package dev.idnode.client;

import java.time.Clock;
import java.time.Duration;

/**
 * How a {@link NumericGenerator} leases and mints. Every generator of a database must use the
 * same worker bits (the database's first lease fixes them).
 *
 * @param layout the ID layout
 * @param holder names this process in worker listings, at most 128 bytes
 * @param lease how long each lease runs, 1 s to 1 h; renewed at a third of it
 * @param margin minting stops this long before the lease could lapse; below half the lease
 * @param clock the wall clock IDs are timed by
 */
public record NumericOptions(NumericLayout layout, String holder, Duration lease, Duration margin, Clock clock) {
  /** The default layout, holder {@code java-client}, 30 s leases, a 3 s margin, the system clock. */
  public static final NumericOptions DEFAULT =
      new NumericOptions(NumericLayout.DEFAULT, "java-client", Duration.ofSeconds(30), Duration.ofSeconds(3), Clock.systemUTC());

  /** Checks every field's range. */
  public NumericOptions {
    if (layout == null || holder == null || clock == null) {
      throw new IllegalArgumentException("layout, holder and clock must be set");
    }
    if (holder.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 128) {
      throw new IllegalArgumentException("holder must be at most 128 bytes");
    }
    if (lease == null || lease.compareTo(Duration.ofSeconds(1)) < 0 || lease.compareTo(Duration.ofHours(1)) > 0) {
      throw new IllegalArgumentException("lease must be within 1s..1h, got " + lease);
    }
    if (margin == null || margin.isNegative() || margin.compareTo(lease.dividedBy(2)) >= 0) {
      throw new IllegalArgumentException("margin must be at least 0 and below half the lease (" + lease + "), got " + margin);
    }
  }

  /** @param layout the layout @return these options with it */
  public NumericOptions withLayout(NumericLayout layout) {
    return new NumericOptions(layout, holder, lease, margin, clock);
  }

  /**
   * @param lease 1 s to 1 h
   * @return these options with that lease and a margin of a tenth of it
   */
  public NumericOptions withLease(Duration lease) {
    return new NumericOptions(layout, holder, lease, lease == null ? null : lease.dividedBy(10), clock);
  }

  /** @param clock the clock @return these options timed by it (tests step it) */
  public NumericOptions withClock(Clock clock) {
    return new NumericOptions(layout, holder, lease, margin, clock);
  }

  /** @param holder the holder's name @return these options with it */
  public NumericOptions withHolder(String holder) {
    return new NumericOptions(layout, holder, lease, margin, clock);
  }
}
