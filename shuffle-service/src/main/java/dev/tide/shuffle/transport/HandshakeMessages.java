package dev.tide.shuffle.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The handshake frames (type bytes 1-15) and the proofs they carry. Wire payloads:
 *
 * <pre>
 *   HELLO     (1): byte version(=1) | uint16 len | appId UTF-8 | 32 bytes clientNonce
 *   CHALLENGE (2): 32 bytes serverNonce
 *   RESPONSE  (3): 32 bytes HMAC-SHA256(secret, "tide-client-v1" | uint16 len | appId | clientNonce | serverNonce)
 *   OK        (4): 32 bytes HMAC-SHA256(secret, "tide-server-v1" | uint16 len | appId | clientNonce | serverNonce)
 *   REJECT    (5): uint16 len | reason UTF-8
 *   BUSY      (6): int32 retryAfterMillis | uint16 len | reason UTF-8   (server at a limit; closes)
 * </pre>
 * Stateless and thread-safe ({@link Mac} instances are made per call).
 */
final class HandshakeMessages {
  static final byte HELLO = 1;
  static final byte CHALLENGE = 2;
  static final byte RESPONSE = 3;
  static final byte OK = 4;
  static final byte REJECT = 5;
  static final byte BUSY = 6;
  static final byte LAST_HANDSHAKE_TYPE = 15;

  static final byte VERSION = 1;
  static final int NONCE_BYTES = 32;
  static final int PROOF_BYTES = 32;
  static final int MAX_APP_ID_BYTES = 256;

  private static final SecureRandom RANDOM = new SecureRandom();

  private HandshakeMessages() {}

  static byte[] nonce() {
    byte[] n = new byte[NONCE_BYTES];
    RANDOM.nextBytes(n);
    return n;
  }

  static ByteBuf hello(ByteBufAllocator alloc, String appId, byte[] clientNonce) {
    ByteBuf buf = Frames.start(alloc, HELLO);
    buf.writeByte(VERSION);
    WireStrings.write(buf, appId);
    buf.writeBytes(clientNonce);
    return Frames.finish(buf);
  }

  static ByteBuf fixed(ByteBufAllocator alloc, byte type, byte[] bytes) {
    ByteBuf buf = Frames.start(alloc, type);
    buf.writeBytes(bytes);
    return Frames.finish(buf);
  }

  static ByteBuf reject(ByteBufAllocator alloc, String reason) {
    ByteBuf buf = Frames.start(alloc, REJECT);
    WireStrings.write(buf, reason);
    return Frames.finish(buf);
  }

  static ByteBuf busy(ByteBufAllocator alloc, int retryAfterMillis, String reason) {
    ByteBuf buf = Frames.start(alloc, BUSY);
    buf.writeInt(retryAfterMillis);
    WireStrings.write(buf, reason);
    return Frames.finish(buf);
  }

  /** Reads exactly {@code n} bytes that must be all that is left of the body. */
  static byte[] readFixed(ByteBuf body, int n, String what) {
    if (body.readableBytes() != n) {
      throw new MalformedFrameException(what + " must carry " + n + " bytes, got "
          + body.readableBytes());
    }
    byte[] out = new byte[n];
    body.readBytes(out);
    return out;
  }

  static byte[] clientProof(byte[] secret, String appId, byte[] clientNonce, byte[] serverNonce) {
    return proof("tide-client-v1", secret, appId, clientNonce, serverNonce);
  }

  static byte[] serverProof(byte[] secret, String appId, byte[] clientNonce, byte[] serverNonce) {
    return proof("tide-server-v1", secret, appId, clientNonce, serverNonce);
  }

  /** Constant-time comparison. */
  static boolean matches(byte[] expected, byte[] actual) {
    return MessageDigest.isEqual(expected, actual);
  }

  private static byte[] proof(String label, byte[] secret, String appId, byte[] clientNonce,
      byte[] serverNonce) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      mac.update(label.getBytes(StandardCharsets.US_ASCII));
      byte[] app = appId.getBytes(StandardCharsets.UTF_8);
      mac.update((byte) (app.length >>> 8));
      mac.update((byte) app.length);
      mac.update(app);
      mac.update(clientNonce);
      mac.update(serverNonce);
      return mac.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 unavailable", e);
    }
  }
}
