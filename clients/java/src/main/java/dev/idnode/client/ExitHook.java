package dev.idnode.client;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One JVM shutdown hook for every open generator: at exit it closes them, so HiLo ranges go back
 * and worker leases are released even when the application never called close.
 */
final class ExitHook {
  private static final Set<AutoCloseable> OPEN = ConcurrentHashMap.newKeySet();
  private static volatile boolean installed;

  private ExitHook() {}

  static void register(AutoCloseable c) {
    OPEN.add(c);
    if (!installed) {
      synchronized (ExitHook.class) {
        if (!installed) {
          Runtime.getRuntime().addShutdownHook(new Thread(ExitHook::closeAll, "idnode-client-exit"));
          installed = true;
        }
      }
    }
  }

  static void unregister(AutoCloseable c) {
    OPEN.remove(c);
  }

  private static void closeAll() {
    for (AutoCloseable c : OPEN.toArray(new AutoCloseable[0])) {
      try {
        c.close();
      } catch (Exception e) {
        System.err.println("idnode client: at exit, " + c + " could not give its numbers back: " + e.getMessage());
      }
    }
  }
}
