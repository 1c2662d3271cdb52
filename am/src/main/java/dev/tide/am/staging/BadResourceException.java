package dev.tide.am.staging;

/**
 * The user's jars, files or archives ({@code --jar}, {@code -libjars}, {@code -files},
 * {@code -archives}) cannot be staged as given: an entry is not a URI, or two resources (or one
 * and a file Tide stages itself) would have the same name in a container. The message names the
 * entry and how to fix it; the client reports it as a usage error.
 */
public final class BadResourceException extends Exception {
  public BadResourceException(String message) {
    super(message);
  }
}
