package dev.tide.driver.job;

import java.util.List;

/**
 * One map task's input: bytes only the job's mapper interprets (a file range, a seed ...) and the
 * hosts where reading it is cheapest (HDFS block locations), used as locality preferences.
 */
public record InputSplit(byte[] payload, List<String> preferredHosts) {
  public InputSplit {
    payload = payload.clone();
    preferredHosts = List.copyOf(preferredHosts);
  }

  @Override
  public byte[] payload() {
    return payload.clone();
  }
}
