package dev.tide.network;

import io.netty.channel.ChannelPipeline;

/**
 * Switches an authenticated connection to encrypted records: adds {@link RecordOpener} and
 * {@link RecordSealer} in front of the frame decoder, so that the protocol handlers keep
 * reading and writing plain frames (and file regions) while only records travel. The bytes the
 * frame decoder already holds (received after the handshake's last frame) are the first records.
 * Both handshake handlers call it on success when the client announced encryption. Pipeline:
 * {@code tide-crypto-open -> tide-crypto-seal -> tide-frames -> protocol handlers}.
 */
final class WireEncryption {
  static final String OPENER = "tide-crypto-open";
  static final String SEALER = "tide-crypto-seal";

  private WireEncryption() {}

  static void install(ChannelPipeline pipeline, FrameDecoder frames, SessionKeys keys,
      String appId, ThrottledLog failures) {
    RecordCipher.warmUpOnce();
    String framesName = pipeline.context(frames).name();
    pipeline.addBefore(framesName, OPENER, new RecordOpener(keys.receiveKey(), appId,
        frames.takeBuffered(), failures));
    pipeline.addBefore(framesName, SEALER, new RecordSealer(keys.sendKey()));
  }
}
