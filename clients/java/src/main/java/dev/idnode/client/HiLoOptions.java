package dev.idnode.client;

/**
 * How a {@link HiLoGenerator} prints and prefetches. Immutable; start from {@link #DEFAULT}.
 *
 * <table>
 * <caption>ID formats</caption>
 * <tr><th>options</th><th>ID</th><th>RavenDB</th></tr>
 * <tr><td>(default)</td><td>{@code orders/1-A}</td><td>4.x and later</td></tr>
 * <tr><td>{@link #withoutNodeTag()}</td><td>{@code orders/1}</td><td>3.x</td></tr>
 * <tr><td>{@link #withServerPrefix(String) withServerPrefix("NorthServer")}</td><td>{@code orders/NorthServer/1-A}</td><td></td></tr>
 * </table>
 *
 * <p>A tagless ID has the shape of an identity of the same name ({@code orders|} gives
 * {@code orders/1} too): do not take identities for a collection printed without the node tag.
 *
 * @param prefetchAt fetch the next range once this fraction of the current one is handed out
 * @param nodeTag print {@code -} and the granting node's tag after the number
 * @param serverPrefix a word between tag and number, empty for none
 */
public record HiLoOptions(double prefetchAt, boolean nodeTag, String serverPrefix) {
  /** Prefetch at 80%, node tag printed, no server prefix. */
  public static final HiLoOptions DEFAULT = new HiLoOptions(0.8, true, "");

  /** Checks prefetchAt is within (0, 1]. */
  public HiLoOptions {
    if (!(prefetchAt > 0 && prefetchAt <= 1)) {
      throw new IllegalArgumentException("prefetchAt must be within (0, 1], got " + prefetchAt);
    }
    if (serverPrefix == null) {
      throw new IllegalArgumentException("serverPrefix must not be null; empty means none");
    }
  }

  /** @param fraction within (0, 1] @return these options prefetching at fraction */
  public HiLoOptions withPrefetchAt(double fraction) {
    return new HiLoOptions(fraction, nodeTag, serverPrefix);
  }

  /** @return these options printing no node tag ({@code orders/1}) */
  public HiLoOptions withoutNodeTag() {
    return new HiLoOptions(prefetchAt, false, serverPrefix);
  }

  /**
   * @param prefix one word, without the separator
   * @return these options printing {@code orders/prefix/1-A}
   */
  public HiLoOptions withServerPrefix(String prefix) {
    if (prefix == null || prefix.isEmpty()) {
      throw new IllegalArgumentException("server prefix must not be empty");
    }
    return new HiLoOptions(prefetchAt, nodeTag, prefix);
  }
}
