package dev.tide.network;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * A nonce or a proof in a handshake message: a fixed number of bytes, copied in and out,
 * compared by content and never printed (its {@link #toString} gives only the length).
 * Immutable.
 */
final class FixedBytes {
  private final byte[] bytes;

  private FixedBytes(byte[] bytes) {
    this.bytes = bytes;
  }

  /**
   * A copy of {@code bytes}.
   *
   * @throws IllegalArgumentException naming {@code what} unless exactly {@code n} bytes are given
   */
  static FixedBytes copyOf(byte[] bytes, int n, String what) {
    return require(bytes == null ? null : new FixedBytes(bytes.clone()), n, what);
  }

  /**
   * Reads exactly {@code n} bytes that must be all that is left of a frame's body.
   *
   * @throws MalformedFrameException naming {@code what} if more or fewer are left
   */
  static FixedBytes readRest(ByteBuf body, int n, String what) {
    if (body.readableBytes() != n) {
      throw new MalformedFrameException(what + " must be " + n + " bytes, got "
          + body.readableBytes());
    }
    byte[] out = new byte[n];
    body.readBytes(out);
    return new FixedBytes(out);
  }

  /** The same check as {@link #copyOf} for a value that already exists. */
  static FixedBytes require(FixedBytes value, int n, String what) {
    if (value == null || value.bytes.length != n) {
      throw new IllegalArgumentException(what + " must be " + n + " bytes, got "
          + (value == null ? "none" : value.bytes.length));
    }
    return value;
  }

  int length() {
    return bytes.length;
  }

  byte[] toArray() {
    return bytes.clone();
  }

  void writeTo(ByteBuf buf) {
    buf.writeBytes(bytes);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FixedBytes other && Arrays.equals(other.bytes, bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  @Override
  public String toString() {
    return bytes.length + " bytes";
  }
}
