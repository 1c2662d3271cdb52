package dev.tide.network;

/**
 * User event fired down the pipeline (to the protocol handlers) once the handshake succeeded,
 * on both sides, before any protocol frame is delivered.
 */
public record HandshakeCompletedEvent(String appId) {}
