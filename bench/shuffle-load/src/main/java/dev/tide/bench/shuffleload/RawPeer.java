package dev.tide.bench.shuffleload;

import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.concurrent.ThreadLocalRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * One plain blocking socket to the shuffle server that speaks the wire protocol from
 * {@code shuffle-service/PROTOCOL.md} byte by byte, without the project's transport code, so a
 * hostile peer can send what the project's client never would (frames of unknown types, half a
 * frame, control characters in an application id) and stop reading when it likes. Wire bytes:
 *
 * <pre>
 *   frame:     int32 length | byte type | payload (length - 1 bytes)
 *   HELLO (1): byte version(=1) | uint16 len | appId UTF-8 | 32 bytes clientNonce
 *   CHALLENGE (2): 32 bytes serverNonce
 *   RESPONSE (3): HMAC-SHA256(secret, "tide-client-v1" | uint16 len | appId | clientNonce | serverNonce)
 *   OK (4) | REJECT (5) | BUSY (6)
 * </pre>
 *
 * Not thread-safe, except {@link #close()}, which another thread may call to unblock a read or
 * a write.
 */
final class RawPeer implements Closeable {
  static final byte HELLO = 1;
  static final byte CHALLENGE = 2;
  static final byte RESPONSE = 3;
  static final byte OK = 4;
  static final byte FETCH_REQUEST = 16;
  static final int NONCE_BYTES = 32;

  /** A frame read from the server: its type byte and payload. */
  record Frame(byte type, byte[] payload) {}

  private final Socket socket;
  private final DataOutputStream out;
  private final DataInputStream in;

  private RawPeer(Socket socket) throws IOException {
    this.socket = socket;
    this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(), 1 << 16));
    this.in = new DataInputStream(socket.getInputStream());
  }

  /**
   * Connects to 127.0.0.1:port.
   *
   * @param receiveBufferBytes the socket's receive buffer, set before connecting (a small one
   *     makes a peer that stops reading push back on the server sooner); 0 for the default
   */
  static RawPeer connect(int port, int receiveBufferBytes) throws IOException {
    Socket socket = new Socket();
    try {
      if (receiveBufferBytes > 0) {
        socket.setReceiveBufferSize(receiveBufferBytes);
      }
      socket.setTcpNoDelay(true);
      socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
      return new RawPeer(socket);
    } catch (IOException e) {
      socket.close();
      throw e;
    }
  }

  /** Reads may block for at most this long before a {@code SocketTimeoutException}. */
  void readTimeout(int millis) throws IOException {
    socket.setSoTimeout(millis);
  }

  /**
   * Authenticates for {@code appId} with {@code secret}.
   *
   * @return the type of the server's last frame: {@link #OK} on success, else REJECT or BUSY
   *     (the server then closes)
   */
  byte authenticate(String appId, byte[] secret) throws IOException {
    byte[] clientNonce = randomBytes(NONCE_BYTES);
    hello(appId, clientNonce);
    Frame challenge = readFrame(1 << 16);
    if (challenge.type() != CHALLENGE) {
      return challenge.type();
    }
    writeFrame(RESPONSE, proof(secret, appId, clientNonce, challenge.payload()));
    flush();
    return readFrame(1 << 16).type();
  }

  /** Writes and flushes a HELLO for {@code appId}, which may hold any characters. */
  void hello(String appId, byte[] clientNonce) throws IOException {
    byte[] app = appId.getBytes(StandardCharsets.UTF_8);
    byte[] payload = new byte[1 + 2 + app.length + clientNonce.length];
    payload[0] = 1;
    payload[1] = (byte) (app.length >>> 8);
    payload[2] = (byte) app.length;
    System.arraycopy(app, 0, payload, 3, app.length);
    System.arraycopy(clientNonce, 0, payload, 3 + app.length, clientNonce.length);
    writeFrame(HELLO, payload);
    flush();
  }

  /** Buffers one frame; {@link #flush()} sends it. */
  void writeFrame(byte type, byte[] payload) throws IOException {
    out.writeInt(1 + payload.length);
    out.writeByte(type);
    out.write(payload);
  }

  /** Writes bytes as they are (several frames, or a part of one). */
  void writeRaw(byte[] bytes, int length) throws IOException {
    out.write(bytes, 0, length);
  }

  void flush() throws IOException {
    out.flush();
  }

  /**
   * Reads one frame.
   *
   * @throws IOException if the frame is longer than {@code maxBytes} or the server closed
   */
  Frame readFrame(int maxBytes) throws IOException {
    int length = in.readInt();
    if (length < 1 || length > maxBytes) {
      throw new IOException("frame length " + length + " from the server");
    }
    byte type = in.readByte();
    byte[] payload = new byte[length - 1];
    in.readFully(payload);
    return new Frame(type, payload);
  }

  /** Reads until the server closes; returns the bytes read (bounded by the read timeout). */
  long drainUntilClosed() throws IOException {
    byte[] sink = new byte[4096];
    long total = 0;
    try {
      for (int n; (n = in.read(sink)) >= 0; ) {
        total += n;
      }
    } catch (EOFException e) {
      // closed
    }
    return total;
  }

  /** Closes with SO_LINGER 0: the server sees a reset instead of an orderly close. */
  void reset() throws IOException {
    socket.setSoLinger(true, 0);
    socket.close();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }

  static byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    ThreadLocalRandom.current().nextBytes(b);
    return b;
  }

  /** The client's proof of PROTOCOL.md, written out here rather than borrowed from the server. */
  static byte[] proof(byte[] secret, String appId, byte[] clientNonce, byte[] serverNonce) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      mac.update("tide-client-v1".getBytes(StandardCharsets.US_ASCII));
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
