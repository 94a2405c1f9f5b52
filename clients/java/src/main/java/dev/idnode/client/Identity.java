package dev.idnode.client;

/**
 * An identity counter and its value; the next identity is value + 1.
 *
 * @param name the counter's name, as first spelled
 * @param value its value
 */
public record Identity(String name, long value) {}
