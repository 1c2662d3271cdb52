package dev.tide.bench.allocator;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.net.DNSToSwitchMapping;

/**
 * A static topology for the benchmark: {@code hostNNNNN...} is on rack
 * {@code /rackNNNNN/40}; anything else on {@code /default-rack}. Plugged into YARN's
 * {@code RackResolver} (which the AMRM client calls for every host of a request) through
 * {@code net.topology.node.switch.mapping.impl}.
 */
public final class FixedRacks implements DNSToSwitchMapping {
  static final int HOSTS_PER_RACK = 40;

  static String rackOf(String host) {
    if (host.startsWith("host") && host.length() >= 9) {
      try {
        return "/rack" + Integer.parseInt(host.substring(4, 9)) / HOSTS_PER_RACK;
      } catch (NumberFormatException e) {
        // fall through
      }
    }
    return "/default-rack";
  }

  @Override
  public List<String> resolve(List<String> names) {
    List<String> racks = new ArrayList<>(names.size());
    for (String name : names) {
      racks.add(rackOf(name));
    }
    return racks;
  }

  @Override
  public void reloadCachedMappings() {}

  @Override
  public void reloadCachedMappings(List<String> names) {}
}
