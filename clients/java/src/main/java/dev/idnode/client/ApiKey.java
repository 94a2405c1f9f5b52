package dev.idnode.client;

/**
 * An API key as created: its id (for listings and deletion) and its secret, shown only once.
 *
 * @param id the key's id
 * @param secret what {@link IdnodeClient.Builder#apiKey} takes
 */
public record ApiKey(String id, String secret) {
  @Override
  public String toString() {
    return "ApiKey[id=" + id + ", secret=…]";
  }
}
