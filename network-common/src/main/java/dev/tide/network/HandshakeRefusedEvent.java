package dev.tide.network;

/**
 * User event fired down the server pipeline (to the protocol handlers, e.g. for metrics) when
 * the server refuses a handshake, just before the REJECT is written and the channel closed.
 *
 * @param appId the application the peer named, null if it never said
 * @param reason the real reason (logged; the peer was told less)
 */
public record HandshakeRefusedEvent(String appId, String reason) {}
