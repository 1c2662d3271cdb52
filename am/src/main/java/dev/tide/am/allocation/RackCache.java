package dev.tide.am.allocation;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * The rack of each host, resolved once (the cluster's topology script or mapping can be slow)
 * and remembered. Not thread-safe: owned by the allocator thread.
 */
public final class RackCache implements Function<String, String> {
  private final Function<String, String> resolver;
  private final Map<String, String> racks = new HashMap<>();

  /** @param resolver resolves one host, for example with YARN's {@code RackResolver} */
  public RackCache(Function<String, String> resolver) {
    this.resolver = resolver;
  }

  @Override
  public String apply(String host) {
    return racks.computeIfAbsent(host, resolver);
  }
}
