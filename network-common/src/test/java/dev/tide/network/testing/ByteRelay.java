package dev.tide.network.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A TCP relay on loopback for tests: accepts connections, connects each to the target port and
 * copies bytes both ways, keeping a copy of everything it passed on, so a test can tell what
 * was on the wire. Bounded by what the test sends. Close it to stop it.
 */
public final class ByteRelay implements AutoCloseable {
  private final ServerSocket listener;
  private final int targetPort;
  private final List<Socket> sockets = new ArrayList<>();
  private final java.io.ByteArrayOutputStream toServer = new java.io.ByteArrayOutputStream();
  private final java.io.ByteArrayOutputStream toClient = new java.io.ByteArrayOutputStream();
  private final Thread acceptor;
  /** Offset in the server-to-client bytes whose byte is flipped on the way, or -1. */
  private volatile long corruptToClientAt = -1;

  public ByteRelay(int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.acceptor = new Thread(this::accept, "byte-relay-" + listener.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /**
   * Flips the lowest bit of the byte at {@code offset} of all server-to-client bytes relayed
   * (counted over every connection), to show what damage on the wire does.
   */
  public void corruptToClientAt(long offset) {
    corruptToClientAt = offset;
  }

  public int port() {
    return listener.getLocalPort();
  }

  private void accept() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        synchronized (sockets) {
          sockets.add(client);
          sockets.add(server);
        }
        pump(client, server, toServer);
        pump(server, client, toClient);
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void pump(Socket from, Socket to, java.io.ByteArrayOutputStream copy) {
    Thread t = new Thread(() -> {
      byte[] buf = new byte[16384];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        int n;
        while ((n = in.read(buf)) > 0) {
          synchronized (copy) {
            long at = corruptToClientAt - copy.size();
            if (copy == toClient && at >= 0 && at < n) {
              buf[(int) at] ^= 1;
            }
            copy.write(buf, 0, n);
          }
          out.write(buf, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // one side closed: close both
      } finally {
        closeQuietly(from);
        closeQuietly(to);
      }
    }, "byte-relay-pump");
    t.setDaemon(true);
    t.start();
  }

  /** All bytes relayed from clients to the server so far. */
  public byte[] toServer() {
    synchronized (toServer) {
      return toServer.toByteArray();
    }
  }

  /** All bytes relayed from the server to clients so far. */
  public byte[] toClient() {
    synchronized (toClient) {
      return toClient.toByteArray();
    }
  }

  /** Whether {@code text} (as UTF-8) was in the bytes of either direction. */
  public boolean sawEitherWay(String text) {
    return contains(toServer(), text) || contains(toClient(), text);
  }

  public static boolean contains(byte[] haystack, String text) {
    byte[] needle = text.getBytes(StandardCharsets.UTF_8);
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
    synchronized (sockets) {
      sockets.forEach(ByteRelay::closeQuietly);
    }
  }
}
