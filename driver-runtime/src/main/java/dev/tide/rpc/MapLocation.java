package dev.tide.rpc;

/** Where one map task's committed output is served: the tide_shuffle service of its node. */
public record MapLocation(int mapId, String host, int shufflePort) {}
