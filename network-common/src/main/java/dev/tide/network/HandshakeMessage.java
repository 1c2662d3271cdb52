package dev.tide.network;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;

/**
 * A frame of the handshake (type bytes 1-15): immutable, with an explicit type byte, encoded as
 * the payload of a {@link Frames} frame and decoded by {@link HandshakeMessages#decode}. Payloads:
 *
 * <pre>
 *   HELLO     (1): byte version(=1) | uint16 len | appId UTF-8 | 32 bytes clientNonce
 *              or byte version(=2) | uint16 len | appId UTF-8 | 32 bytes clientNonce
 *                 | byte flags (=1: the client encrypts; no other bit is defined)
 *   CHALLENGE (2): 32 bytes serverNonce
 *   RESPONSE  (3): 32 bytes clientProof   (see {@link HandshakeMessages#clientProof})
 *   OK        (4): 32 bytes serverProof   (see {@link HandshakeMessages#serverProof})
 *   REJECT    (5): uint16 len | reason UTF-8                       (then the server closes)
 *   BUSY      (6): int32 retryAfterMillis | uint16 len | reason UTF-8   (then the server closes)
 * </pre>
 *
 * Constructors validate (nonce and proof sizes, application id length, retry-after sign) and
 * throw {@link IllegalArgumentException}; decoding turns that, a short body and trailing bytes
 * into a {@link MalformedFrameException} naming the message. Nonces and proofs are
 * {@link FixedBytes}: copied in and out, compared by content, never printed.
 */
sealed interface HandshakeMessage {
  byte type();

  /** Bytes {@link #encodePayload} writes. */
  int encodedLength();

  /** Writes the payload (after the type byte). */
  void encodePayload(ByteBuf buf);

  /** A complete frame holding this message; the caller owns it. */
  default ByteBuf toFrame(ByteBufAllocator alloc) {
    ByteBuf buf = Frames.start(alloc, type());
    buf.ensureWritable(encodedLength());
    encodePayload(buf);
    return Frames.finish(buf);
  }

  /**
   * Client -> server: the application the connection wants to act for, the client's nonce and
   * whether it encrypts what follows the handshake. A client that does not encrypt sends a
   * version 1 HELLO (the bytes of clients from before encryption); one that does, version 2.
   */
  record Hello(String appId, FixedBytes clientNonce, boolean encrypt) implements HandshakeMessage {
    private static final String HELLO_NONCE = "HELLO client nonce";

    public Hello {
      if (appId == null || appId.isEmpty()) {
        throw new IllegalArgumentException("HELLO names no application");
      }
      int appIdBytes = appId.getBytes(StandardCharsets.UTF_8).length;
      if (appIdBytes > HandshakeMessages.MAX_APP_ID_BYTES) {
        throw new IllegalArgumentException("HELLO application id of " + appIdBytes
            + " bytes exceeds " + HandshakeMessages.MAX_APP_ID_BYTES);
      }
      FixedBytes.require(clientNonce, HandshakeMessages.NONCE_BYTES, HELLO_NONCE);
    }

    public Hello(String appId, byte[] clientNonce) {
      this(appId, clientNonce, false);
    }

    public Hello(String appId, byte[] clientNonce, boolean encrypt) {
      this(appId, FixedBytes.copyOf(clientNonce, HandshakeMessages.NONCE_BYTES, HELLO_NONCE),
          encrypt);
    }

    /** The protocol version this HELLO announces: 2 when the client encrypts, else 1. */
    public byte version() {
      return encrypt ? HandshakeMessages.VERSION_ENCRYPTING : HandshakeMessages.VERSION;
    }

    @Override
    public byte type() {
      return HandshakeMessages.HELLO;
    }

    @Override
    public int encodedLength() {
      return 1 + WireStrings.encodedLength(appId) + HandshakeMessages.NONCE_BYTES
          + (encrypt ? 1 : 0);
    }

    @Override
    public void encodePayload(ByteBuf buf) {
      buf.writeByte(version());
      WireStrings.write(buf, appId);
      clientNonce.writeTo(buf);
      if (encrypt) {
        buf.writeByte(HandshakeMessages.FLAG_ENCRYPT);
      }
    }

    /** @throws UnsupportedVersionException if the version byte is not ours; nothing else read */
    static Hello decode(ByteBuf buf) {
      byte version = buf.readByte();
      if (version != HandshakeMessages.VERSION && version != HandshakeMessages.VERSION_ENCRYPTING) {
        throw new UnsupportedVersionException(version);
      }
      String appId = WireStrings.read(buf, HandshakeMessages.MAX_APP_ID_BYTES, "HELLO application id");
      if (version == HandshakeMessages.VERSION) {
        return new Hello(appId, FixedBytes.readRest(buf, HandshakeMessages.NONCE_BYTES,
            HELLO_NONCE), false);
      }
      byte[] nonce = new byte[HandshakeMessages.NONCE_BYTES];
      buf.readBytes(nonce);
      byte flags = buf.readByte();
      if (flags != HandshakeMessages.FLAG_ENCRYPT) {
        throw new IllegalArgumentException("HELLO version 2 flags " + Byte.toUnsignedInt(flags)
            + " (only 1, encrypt, is defined)");
      }
      requireFullyRead(buf);
      return new Hello(appId, nonce, true);
    }

    private static void requireFullyRead(ByteBuf buf) {
      if (buf.isReadable()) {
        throw new IllegalArgumentException(buf.readableBytes() + " trailing bytes");
      }
    }
  }

  /** Server -> client, answering HELLO: the server's nonce. */
  record Challenge(FixedBytes serverNonce) implements HandshakeMessage {
    private static final String WHAT = "CHALLENGE server nonce";

    public Challenge {
      FixedBytes.require(serverNonce, HandshakeMessages.NONCE_BYTES, WHAT);
    }

    public Challenge(byte[] serverNonce) {
      this(FixedBytes.copyOf(serverNonce, HandshakeMessages.NONCE_BYTES, WHAT));
    }

    @Override
    public byte type() {
      return HandshakeMessages.CHALLENGE;
    }

    @Override
    public int encodedLength() {
      return HandshakeMessages.NONCE_BYTES;
    }

    @Override
    public void encodePayload(ByteBuf buf) {
      serverNonce.writeTo(buf);
    }

    static Challenge decode(ByteBuf buf) {
      return new Challenge(FixedBytes.readRest(buf, HandshakeMessages.NONCE_BYTES, WHAT));
    }
  }

  /** Client -> server, answering CHALLENGE: the client's proof that it knows the secret. */
  record Response(FixedBytes proof) implements HandshakeMessage {
    private static final String WHAT = "RESPONSE proof";

    public Response {
      FixedBytes.require(proof, HandshakeMessages.PROOF_BYTES, WHAT);
    }

    public Response(byte[] proof) {
      this(FixedBytes.copyOf(proof, HandshakeMessages.PROOF_BYTES, WHAT));
    }

    @Override
    public byte type() {
      return HandshakeMessages.RESPONSE;
    }

    @Override
    public int encodedLength() {
      return HandshakeMessages.PROOF_BYTES;
    }

    @Override
    public void encodePayload(ByteBuf buf) {
      proof.writeTo(buf);
    }

    static Response decode(ByteBuf buf) {
      return new Response(FixedBytes.readRest(buf, HandshakeMessages.PROOF_BYTES, WHAT));
    }
  }

  /** Server -> client, accepting RESPONSE: the server's own proof (mutual authentication). */
  record Ok(FixedBytes proof) implements HandshakeMessage {
    private static final String WHAT = "OK proof";

    public Ok {
      FixedBytes.require(proof, HandshakeMessages.PROOF_BYTES, WHAT);
    }

    public Ok(byte[] proof) {
      this(FixedBytes.copyOf(proof, HandshakeMessages.PROOF_BYTES, WHAT));
    }

    @Override
    public byte type() {
      return HandshakeMessages.OK;
    }

    @Override
    public int encodedLength() {
      return HandshakeMessages.PROOF_BYTES;
    }

    @Override
    public void encodePayload(ByteBuf buf) {
      proof.writeTo(buf);
    }

    static Ok decode(ByteBuf buf) {
      return new Ok(FixedBytes.readRest(buf, HandshakeMessages.PROOF_BYTES, WHAT));
    }
  }

  /** Server -> client: the handshake is refused; the server closes after sending it. */
  record Reject(String reason) implements HandshakeMessage {
    public Reject {
      reason = HandshakeMessages.checkReason(reason);
    }

    @Override
    public byte type() {
      return HandshakeMessages.REJECT;
    }

    @Override
    public int encodedLength() {
      return WireStrings.encodedLength(reason);
    }

    @Override
    public void encodePayload(ByteBuf buf) {
      WireStrings.write(buf, reason);
    }

    static Reject decode(ByteBuf buf) {
      String reason = WireStrings.read(buf, 0xFFFF, "REJECT reason");
      HandshakeMessages.requireFullyRead(buf, "REJECT");
      return new Reject(reason);
    }
  }

  /**
   * Server -> client, instead of anything else: the server is at a limit (connections, direct
   * memory) and asks to be retried after {@code retryAfterMillis} (>= 0); it closes after sending.
   */
  record Busy(int retryAfterMillis, String reason) implements HandshakeMessage {
    public Busy {
      if (retryAfterMillis < 0) {
        throw new IllegalArgumentException("BUSY retryAfterMillis must be >= 0, got "
            + retryAfterMillis);
      }
      reason = HandshakeMessages.checkReason(reason);
    }

    @Override
    public byte type() {
      return HandshakeMessages.BUSY;
    }

    @Override
    public int encodedLength() {
      return 4 + WireStrings.encodedLength(reason);
    }

    @Override
    public void encodePayload(ByteBuf buf) {
      buf.writeInt(retryAfterMillis);
      WireStrings.write(buf, reason);
    }

    static Busy decode(ByteBuf buf) {
      int retryAfterMillis = buf.readInt();
      String reason = WireStrings.read(buf, 0xFFFF, "BUSY reason");
      HandshakeMessages.requireFullyRead(buf, "BUSY");
      return new Busy(retryAfterMillis, reason);
    }
  }

  /**
   * A HELLO announcing a version this side does not speak. Separate from other malformed frames
   * so the server can tell the peer the real reason (it reveals nothing about secrets).
   */
  final class UnsupportedVersionException extends MalformedFrameException {
    private final byte version;

    UnsupportedVersionException(byte version) {
      super("unsupported handshake version " + version);
      this.version = version;
    }

    byte version() {
      return version;
    }
  }
}
