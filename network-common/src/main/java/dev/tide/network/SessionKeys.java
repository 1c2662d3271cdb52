package dev.tide.network;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The two AES-256 keys of one encrypted connection, derived after a successful handshake with
 * HKDF (RFC 5869) over HMAC-SHA256:
 *
 * <pre>
 *   PRK        = HMAC-SHA256(key = clientNonce | serverNonce, applicationSecret)      (extract)
 *   clientKey  = HMAC-SHA256(PRK, "tide-crypto-v1 client->server" | uint16 len | appId | 0x01)
 *   serverKey  = HMAC-SHA256(PRK, "tide-crypto-v1 server->client" | uint16 len | appId | 0x01)
 * </pre>
 *
 * Both nonces are fresh per connection, so every connection has keys of its own, and each
 * direction has its own key, so both may count their records from 0. The secret itself never
 * keys a cipher. Described in {@code shuffle-service/PROTOCOL.md}.
 *
 * @param sendKey the key this side seals its records with
 * @param receiveKey the key the peer's records are opened with
 */
record SessionKeys(byte[] sendKey, byte[] receiveKey) {
  static final int KEY_BYTES = 32;
  private static final String CLIENT_TO_SERVER = "tide-crypto-v1 client->server";
  private static final String SERVER_TO_CLIENT = "tide-crypto-v1 server->client";

  /** The keys of the client side ({@code client} true) or the server side of a connection. */
  static SessionKeys derive(byte[] secret, String appId, byte[] clientNonce, byte[] serverNonce,
      boolean client) {
    byte[] salt = new byte[clientNonce.length + serverNonce.length];
    System.arraycopy(clientNonce, 0, salt, 0, clientNonce.length);
    System.arraycopy(serverNonce, 0, salt, clientNonce.length, serverNonce.length);
    byte[] prk = hmac(salt, secret);
    byte[] c2s = expand(prk, CLIENT_TO_SERVER, appId);
    byte[] s2c = expand(prk, SERVER_TO_CLIENT, appId);
    return client ? new SessionKeys(c2s, s2c) : new SessionKeys(s2c, c2s);
  }

  private static byte[] expand(byte[] prk, String label, String appId) {
    byte[] labelBytes = label.getBytes(StandardCharsets.US_ASCII);
    byte[] app = appId.getBytes(StandardCharsets.UTF_8);
    byte[] info = new byte[labelBytes.length + 2 + app.length + 1];
    System.arraycopy(labelBytes, 0, info, 0, labelBytes.length);
    info[labelBytes.length] = (byte) (app.length >>> 8);
    info[labelBytes.length + 1] = (byte) app.length;
    System.arraycopy(app, 0, info, labelBytes.length + 2, app.length);
    info[info.length - 1] = 1; // HKDF's block counter: one block of 32 bytes is the whole key
    return hmac(prk, info);
  }

  private static byte[] hmac(byte[] key, byte[] data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(data);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 unavailable", e);
    }
  }

  @Override
  public String toString() {
    return "SessionKeys[hidden]";
  }
}
