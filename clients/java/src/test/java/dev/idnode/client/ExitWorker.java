package dev.idnode.client;

/**
 * A JVM that takes IDs and exits without closing anything, so only the shutdown hook can give
 * its unused HiLo numbers back. Arguments: a node address, the tag, how many IDs. Prints the
 * last ID.
 */
public final class ExitWorker {
  private ExitWorker() {}

  public static void main(String[] args) {
    IdnodeClient client = IdnodeClient.builder().nodes(args[0]).build();
    String last = "";
    for (int i = 0; i < Integer.parseInt(args[2]); i++) {
      last = client.nextId(args[1]);
    }
    System.out.println(last);
    System.exit(0);
  }
}
