package dev.idnode.client;

/**
 * A claimed semantic ID and who holds it.
 *
 * @param id the ID as the claim spelled it
 * @param owner the holder named at claim time, empty for none
 */
public record Claim(String id, String owner) {}
