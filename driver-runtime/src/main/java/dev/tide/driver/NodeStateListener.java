package dev.tide.driver;

public interface NodeStateListener {
  void decommissioning(String host, long leavesAtMillis);

  void lost(String host);
}
