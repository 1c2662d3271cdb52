package dev.tide.executor.sort;

import java.io.IOException;

/** Closes several things at once: every one is closed, failures collected, not stopped at. */
public final class CloseAll {
  private CloseAll() {}

  /** Closes each; throws the first failure with the others suppressed into it. */
  public static void of(Iterable<? extends AutoCloseable> all) throws IOException {
    IOException first = null;
    for (AutoCloseable c : all) {
      try {
        c.close();
      } catch (Exception e) {
        IOException io = e instanceof IOException x ? x : new IOException(e);
        if (first == null) {
          first = io;
        } else {
          first.addSuppressed(io);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
