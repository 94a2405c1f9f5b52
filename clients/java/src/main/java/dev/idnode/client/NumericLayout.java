package dev.idnode.client;

import java.time.Duration;
import java.time.Instant;

/**
 * How a numeric ID's 63 usable bits are split, from the top: {@code timeBits} of ticks
 * ({@code unit} long each) since {@code epoch}, {@code workerBits} of worker ID, then
 * {@code sequenceBits} of sequence within a tick. The sign bit is always 0. The same layout as
 * the Go package flake.
 *
 * @param epoch where ticks count from
 * @param unit a tick, whole milliseconds
 * @param timeBits bits of time
 * @param workerBits bits of worker (1..22, fixed per database by its first lease)
 * @param sequenceBits bits of sequence
 */
public record NumericLayout(Instant epoch, Duration unit, int timeBits, int workerBits, int sequenceBits) {
  private static final Instant EPOCH_2026 = Instant.parse("2026-01-01T00:00:00Z");

  /** 41 bits of ms from 2026-01-01 UTC (until 2095), 1024 workers, 4096 IDs per ms per worker. */
  public static final NumericLayout DEFAULT = new NumericLayout(EPOCH_2026, Duration.ofMillis(1), 41, 10, 12);

  /** IDs at most 2^53−1, exact in a JavaScript number: 41 bits of ms, 32 workers, 128 per ms. */
  public static final NumericLayout JS_SAFE = new NumericLayout(EPOCH_2026, Duration.ofMillis(1), 41, 5, 7);

  /** Checks the rules flake.Layout.Validate states. */
  public NumericLayout {
    if (epoch == null) {
      throw new IllegalArgumentException("layout epoch is not set");
    }
    if (unit == null || unit.toMillis() < 1 || unit.toNanos() % 1_000_000 != 0) {
      throw new IllegalArgumentException("layout unit must be whole milliseconds, at least 1 ms, got " + unit);
    }
    if (timeBits < 1 || workerBits < 1 || sequenceBits < 1) {
      throw new IllegalArgumentException("timeBits, workerBits and sequenceBits must each be at least 1, got "
          + timeBits + ", " + workerBits + ", " + sequenceBits);
    }
    if (timeBits + workerBits + sequenceBits > 63) {
      throw new IllegalArgumentException("timeBits+workerBits+sequenceBits must be at most 63, got "
          + timeBits + "+" + workerBits + "+" + sequenceBits);
    }
    if (workerBits > 22) {
      throw new IllegalArgumentException("workerBits must be within 1..22 (what the cluster leases), got " + workerBits);
    }
    if (unit.toMillis() > (Long.MAX_VALUE >> timeBits) / 1_000_000) {
      throw new IllegalArgumentException("2^" + timeBits + " ticks of " + unit + " do not fit 292 years");
    }
  }

  /** @return the last tick the time bits hold */
  long maxTick() {
    return (1L << timeBits) - 1;
  }

  /** The tick Unix ms {@code ms} falls in, rounded down (negative before the epoch), at most maxTick + 1. */
  long tickOfMs(long ms) {
    return Math.min(Math.floorDiv(ms - epoch.toEpochMilli(), unit.toMillis()), maxTick() + 1);
  }

  /**
   * Takes an ID apart.
   *
   * @param id the ID
   * @return its time, worker and sequence
   */
  public Parts decompose(long id) {
    int bits = timeBits + workerBits + sequenceBits;
    if (id < 0 || (bits < 63 && id >>> bits != 0)) {
      throw new IllegalArgumentException(id + " does not fit " + bits + " bits");
    }
    long tick = id >>> (workerBits + sequenceBits);
    long worker = (id >>> sequenceBits) & ((1L << workerBits) - 1);
    long seq = id & ((1L << sequenceBits) - 1);
    return new Parts(tick, worker, seq, epoch.plusMillis(tick * unit.toMillis()));
  }

  /**
   * An ID's parts.
   *
   * @param tick ticks since the epoch
   * @param worker the worker ID
   * @param sequence the sequence within the tick
   * @param time the start of the tick
   */
  public record Parts(long tick, long worker, long sequence, Instant time) {}
}
