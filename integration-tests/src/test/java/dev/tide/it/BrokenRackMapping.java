package dev.tide.it;

import java.util.List;
import org.apache.hadoop.net.DNSToSwitchMapping;

/**
 * A cluster topology mapping ({@code net.topology.node.switch.mapping.impl}) that fails every
 * lookup, as a buggy site-specific mapping would. Set in a job's configuration it reaches only
 * that job's ApplicationMaster, whose allocator resolves the rack of every container it is
 * given: the allocator's round then throws.
 */
public final class BrokenRackMapping implements DNSToSwitchMapping {
  @Override
  public List<String> resolve(List<String> names) {
    throw new IllegalStateException("rack mapping broken by the test for " + names);
  }

  @Override
  public void reloadCachedMappings() {}

  @Override
  public void reloadCachedMappings(List<String> names) {}
}
