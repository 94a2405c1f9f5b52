package dev.idnode.client;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One JVM shutdown hook for every open generator: at exit it closes them, so HiLo ranges go back
 * and worker leases are released even when the application never called close.
 */
final class ExitHook {
  /** Each open generator, with how to close it (a client's own HiLo generator ignores close()). */
  private static final Map<Object, Runnable> OPEN = new ConcurrentHashMap<>();
  private static volatile boolean installed;

  private ExitHook() {}

  static void register(Object generator, Runnable close) {
    OPEN.put(generator, close);
    if (!installed) {
      synchronized (ExitHook.class) {
        if (!installed) {
          Runtime.getRuntime().addShutdownHook(new Thread(ExitHook::closeAll, "idnode-client-exit"));
          installed = true;
        }
      }
    }
  }

  static void unregister(Object generator) {
    OPEN.remove(generator);
  }

  private static void closeAll() {
    for (Map.Entry<Object, Runnable> e : Map.copyOf(OPEN).entrySet()) {
      try {
        e.getValue().run();
      } catch (RuntimeException ex) {
        ClientLog.LOGGER.log(System.Logger.Level.WARNING, "idnode: at exit, {0} could not give its numbers back: {1}",
            e.getKey(), ex.getMessage());
      }
    }
  }
}
