package dev.idnode.client;

/**
 * The client's one logger, {@code dev.idnode.client}, through {@link System.Logger}: it reaches
 * whatever logging the application routes the JDK's logger to (java.util.logging by default,
 * SLF4J or Log4j through their bridges) and costs the client no dependency. It reports what an
 * operator looks for when a cluster misbehaves: a call failing over from one node to another
 * and why, a retry round after every node failed, a HiLo range that could not be given back, a
 * worker lease renewal failing. Nothing is logged per ID.
 */
final class ClientLog {
  static final System.Logger LOGGER = System.getLogger("dev.idnode.client");

  private ClientLog() {}
}
