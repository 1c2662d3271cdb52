package dev.tide.shuffle.server;

import io.netty.channel.Channel;
import java.util.Iterator;
import java.util.LinkedHashSet;

/**
 * The server's connections that have not authenticated yet, oldest first, at most {@code max}:
 * admitting one more pushes the oldest out (its caller closes it). A handshake takes one round
 * trip, so a real client is through long before it could be pushed out, while peers that
 * connect and never authenticate can hold only {@code max} connections (each with at most a
 * handshake-sized frame buffered) and never keep anyone else from connecting. Thread-safe:
 * connections live on different event loops.
 */
final class PendingHandshakes {
  private final int max;
  private final ServerStats stats;
  private final LinkedHashSet<Channel> pending = new LinkedHashSet<>();

  PendingHandshakes(int max, ServerStats stats) {
    this.max = max;
    this.stats = stats;
  }

  /** Adds a new connection; returns the oldest one it pushed out, to be closed, or null. */
  synchronized Channel admit(Channel ch) {
    pending.add(ch);
    stats.unauthenticatedOpened();
    if (pending.size() <= max) {
      return null;
    }
    Iterator<Channel> oldest = pending.iterator();
    Channel out = oldest.next();
    oldest.remove();
    stats.unauthenticatedDone();
    stats.unauthenticatedClosedForRoom();
    return out;
  }

  /** The connection authenticated or closed: it no longer counts. */
  synchronized void done(Channel ch) {
    if (pending.remove(ch)) {
      stats.unauthenticatedDone();
    }
  }
}
