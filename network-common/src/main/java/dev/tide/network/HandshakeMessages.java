package dev.tide.network;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The handshake's type bytes, sizes, decoder and proofs. The messages themselves are the records
 * of {@link HandshakeMessage}, whose javadoc shows the wire payloads; the exchange is described
 * in {@code shuffle-service/PROTOCOL.md}. Proofs are HMAC-SHA256 keyed with the application
 * secret over {@code label | uint16 len | appId UTF-8 | clientNonce | serverNonce}, where label is
 * {@code "tide-client-v1"} (RESPONSE) or {@code "tide-server-v1"} (OK). When the client encrypts
 * (a version 2 HELLO), the labels are {@code "tide-client-v2"} and {@code "tide-server-v2"} and
 * the HELLO's flags byte follows the server nonce, so a HELLO rewritten on the way to say "not
 * encrypting" fails the proofs instead of downgrading the connection.
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
  /** The HELLO version of a client that encrypts after the handshake (a flags byte follows). */
  static final byte VERSION_ENCRYPTING = 2;
  static final byte FLAG_ENCRYPT = 1;
  static final int NONCE_BYTES = 32;
  static final int PROOF_BYTES = 32;
  static final int MAX_APP_ID_BYTES = 256;
  /**
   * The largest frame body a client sends during the handshake: a HELLO with the longest
   * application id (type, version, id length and bytes, nonce). RESPONSE is smaller. A server
   * accepts nothing larger before the handshake has succeeded.
   */
  static final int MAX_CLIENT_HANDSHAKE_FRAME_BYTES = 1 + 1 + 2 + MAX_APP_ID_BYTES
      + NONCE_BYTES + 1;
  /** REJECT and BUSY reasons are cut to this many characters. */
  static final int MAX_REASON_CHARS = 2000;

  private static final SecureRandom RANDOM = new SecureRandom();

  private HandshakeMessages() {}

  static byte[] nonce() {
    byte[] n = new byte[NONCE_BYTES];
    RANDOM.nextBytes(n);
    return n;
  }

  /**
   * Decodes a frame body (type byte + payload) into a handshake message. Does not release it.
   *
   * @throws MalformedFrameException naming what is wrong: an empty body, a type that is not a
   *     handshake message (including protocol frames sent before the handshake finished), a
   *     truncated payload, trailing bytes or invalid values
   * @throws HandshakeMessage.UnsupportedVersionException for a HELLO of another version
   */
  static HandshakeMessage decode(ByteBuf body) {
    if (!body.isReadable()) {
      throw new MalformedFrameException("empty frame");
    }
    byte type = body.readByte();
    String name = name(type);
    try {
      return switch (type) {
        case HELLO -> HandshakeMessage.Hello.decode(body);
        case CHALLENGE -> HandshakeMessage.Challenge.decode(body);
        case RESPONSE -> HandshakeMessage.Response.decode(body);
        case OK -> HandshakeMessage.Ok.decode(body);
        case REJECT -> HandshakeMessage.Reject.decode(body);
        case BUSY -> HandshakeMessage.Busy.decode(body);
        default -> throw new MalformedFrameException("frame type " + Byte.toUnsignedInt(type)
            + " is not a handshake message");
      };
    } catch (IndexOutOfBoundsException e) {
      throw new MalformedFrameException("truncated " + name + " frame");
    } catch (IllegalArgumentException e) {
      throw new MalformedFrameException("invalid " + name + " frame: " + e.getMessage());
    }
  }

  /** The PROTOCOL.md name of a handshake type byte, or {@code "type N"}. */
  static String name(byte type) {
    return switch (type) {
      case HELLO -> "HELLO";
      case CHALLENGE -> "CHALLENGE";
      case RESPONSE -> "RESPONSE";
      case OK -> "OK";
      case REJECT -> "REJECT";
      case BUSY -> "BUSY";
      default -> "type " + Byte.toUnsignedInt(type);
    };
  }

  static void requireFullyRead(ByteBuf body, String what) {
    if (body.isReadable()) {
      throw new MalformedFrameException(body.readableBytes() + " trailing bytes after " + what);
    }
  }

  /** A REJECT or BUSY reason as sent: never null, cut to {@link #MAX_REASON_CHARS}. */
  static String checkReason(String reason) {
    if (reason == null) {
      return "";
    }
    return reason.length() > MAX_REASON_CHARS ? reason.substring(0, MAX_REASON_CHARS) : reason;
  }

  static byte[] clientProof(byte[] secret, String appId, byte[] clientNonce, byte[] serverNonce) {
    return clientProof(secret, appId, clientNonce, serverNonce, false);
  }

  static byte[] serverProof(byte[] secret, String appId, byte[] clientNonce, byte[] serverNonce) {
    return serverProof(secret, appId, clientNonce, serverNonce, false);
  }

  /** @param encrypt whether the HELLO announced encryption (version 2) */
  static byte[] clientProof(byte[] secret, String appId, byte[] clientNonce, byte[] serverNonce,
      boolean encrypt) {
    return proof(encrypt ? "tide-client-v2" : "tide-client-v1", secret, appId, clientNonce,
        serverNonce, encrypt);
  }

  /** @param encrypt whether the HELLO announced encryption (version 2) */
  static byte[] serverProof(byte[] secret, String appId, byte[] clientNonce, byte[] serverNonce,
      boolean encrypt) {
    return proof(encrypt ? "tide-server-v2" : "tide-server-v1", secret, appId, clientNonce,
        serverNonce, encrypt);
  }

  /** Constant-time comparison. */
  static boolean matches(byte[] expected, byte[] actual) {
    return MessageDigest.isEqual(expected, actual);
  }

  private static byte[] proof(String label, byte[] secret, String appId, byte[] clientNonce,
      byte[] serverNonce, boolean encrypt) {
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
      if (encrypt) {
        mac.update(FLAG_ENCRYPT);
      }
      return mac.doFinal();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 unavailable", e);
    }
  }
}
