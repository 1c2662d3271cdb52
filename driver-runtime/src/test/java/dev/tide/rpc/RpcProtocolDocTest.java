package dev.tide.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tide.network.MalformedFrameException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * driver-runtime/RPC-PROTOCOL.md against the code: its table of messages is exactly the wire ids
 * of {@link RpcMessageIds} and the records of {@link RpcMessage}; for each message, its layout
 * names every field the decoder reads, in the decoder's order; its example's bytes are those the
 * code writes for {@link RpcExamples} (and decode back); its enum code tables are the enums'
 * codes.
 */
class RpcProtocolDocTest {
  private static final Path DOC = Path.of("RPC-PROTOCOL.md");
  private static final Pattern TABLE_ROW = Pattern.compile(
      "^\\| (\\d+) \\| ([A-Z_]+) \\| ([a-z]+ -> [a-z]+) \\| `RpcMessage\\.(\\w+)` \\|$",
      Pattern.MULTILINE);
  private static final Pattern SECTION =
      Pattern.compile("^### ([A-Z_]+) \\((\\d+)\\)", Pattern.MULTILINE);
  private static final Pattern BLOCK = Pattern.compile("```(\\w*)\\n(.*?)```", Pattern.DOTALL);

  private static String doc() throws IOException {
    return Files.readString(DOC);
  }

  @Test
  void theTableOfMessagesIsTheCodes() throws Exception {
    Map<String, Integer> documented = new LinkedHashMap<>();
    Map<String, String> records = new LinkedHashMap<>();
    Matcher row = TABLE_ROW.matcher(doc());
    while (row.find()) {
      documented.put(row.group(2), Integer.parseInt(row.group(1)));
      records.put(row.group(2), row.group(4));
    }
    Map<String, Integer> constants = new LinkedHashMap<>();
    for (Field f : RpcMessageIds.class.getDeclaredFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == byte.class) {
        constants.put(f.getName(), (int) f.getByte(null));
      }
    }
    assertEquals(constants, documented, "RPC-PROTOCOL.md's table vs RpcMessageIds");
    assertEquals(constants.size(), new HashSet<>(constants.values()).size(), "ids are distinct");
    Map<String, RpcMessage> examples = RpcExamples.all();
    assertEquals(documented.keySet(), examples.keySet(), "an example per documented message");
    Set<String> permitted = new TreeSet<>();
    for (Class<?> c : RpcMessage.class.getPermittedSubclasses()) {
      permitted.add(c.getSimpleName());
    }
    assertEquals(permitted, new TreeSet<>(records.values()), "the table names every record");
    documented.forEach((name, id) -> {
      RpcMessage example = examples.get(name);
      assertEquals(records.get(name), example.getClass().getSimpleName(), name);
      assertEquals(id, example.wireId() & 0xFF, name);
      assertEquals(name, RpcMessages.nameOf(id));
    });
  }

  /**
   * Regenerate the examples' bytes with {@code mvn -o -pl driver-runtime -am test
   * -Dtest=RpcProtocolDocTest -Dsurefire.failIfNoSpecifiedTests=false -Dtide.regenerateDocs=true}.
   */
  @Test
  void eachSectionShowsTheFieldsTheDecoderReadsAndTheExampleBytes() throws Exception {
    if (Boolean.getBoolean("tide.regenerateDocs")) {
      regenerateExamples();
    }
    Map<String, String[]> sections = sections(doc());
    assertEquals(RpcExamples.all().keySet(), sections.keySet(), "a section per message");
    RpcExamples.all().forEach((name, example) -> {
      String layout = sections.get(name)[0];
      int at = -1;
      for (String path : fieldsTheDecoderReads(example)) {
        String field = path.substring(path.lastIndexOf('.') + 1);
        Matcher m = Pattern.compile("\\b" + Pattern.quote(field) + "\\b").matcher(layout);
        assertTrue(m.find(), name + "'s layout names no field " + field + ":\n" + layout);
        if (!path.contains(".")) { // nested fields may first fail inside their list's count check
          assertTrue(m.start() > at, name + "'s layout names " + field + " out of order");
          at = m.start();
        }
      }
      String expected = hex(example);
      assertEquals(expected, sections.get(name)[1].replaceAll("\\s+", " ").trim(),
          name + "'s example bytes; the code writes:\n" + wrap(expected));
      ByteBuf frame = Unpooled.wrappedBuffer(unhex(expected));
      frame.skipBytes(4);
      assertEquals(hex(RpcMessages.decode(frame)), expected, name + " decodes back");
    });
  }

  @Test
  void theEnumCodeTablesAreTheEnumsCodes() throws Exception {
    String doc = doc();
    for (TaskDescription.Kind k : TaskDescription.Kind.values()) {
      assertTrue(doc.contains("| " + k.wire() + " | " + k + " |"), "kind " + k);
    }
    for (TaskOutcome.State s : TaskOutcome.State.values()) {
      assertTrue(doc.contains("| " + s.wire() + " | " + s + " |"), "state " + s);
    }
  }

  /**
   * The fields the decoder reads, in order, as its errors name them when the example's body is
   * cut short at every length, without list indexes ({@code inputs.mapOutputs.host} for
   * {@code inputs[0].mapOutputs[1].host}).
   */
  static List<String> fieldsTheDecoderReads(RpcMessage example) {
    byte[] body = RpcExamples.body(example);
    Set<String> fields = new LinkedHashSet<>();
    String prefix = RpcMessages.nameOf(body[0] & 0xFF) + " (" + (body[0] & 0xFF) + ") ";
    for (int len = 1; len < body.length; len++) {
      try {
        RpcMessages.decode(Unpooled.wrappedBuffer(Arrays.copyOf(body, len)));
        throw new AssertionError("a cut body decoded");
      } catch (MalformedFrameException e) {
        String path = e.getMessage().substring(prefix.length(), e.getMessage().indexOf(':'));
        fields.add(path.replaceAll("\\[\\d+\\]", ""));
      }
    }
    return new ArrayList<>(fields);
  }

  private static void regenerateExamples() throws IOException {
    String doc = doc();
    for (Map.Entry<String, RpcMessage> e : RpcExamples.all().entrySet()) {
      int section = doc.indexOf("### " + e.getKey() + " (");
      int open = doc.indexOf("```hex\n", section) + "```hex\n".length();
      int close = doc.indexOf("```", open);
      doc = doc.substring(0, open) + wrap(hex(e.getValue())) + doc.substring(close);
    }
    Files.writeString(DOC, doc);
  }

  /** Name -> {layout block, example block} of each {@code ### NAME (id)} section. */
  private static Map<String, String[]> sections(String doc) {
    Map<String, String[]> out = new TreeMap<>();
    Matcher s = SECTION.matcher(doc);
    List<Integer> starts = new ArrayList<>();
    List<String> names = new ArrayList<>();
    while (s.find()) {
      starts.add(s.start());
      names.add(s.group(1));
    }
    for (int i = 0; i < names.size(); i++) {
      int end = i + 1 < starts.size() ? starts.get(i + 1) : doc.indexOf("\n## ", starts.get(i));
      String text = doc.substring(starts.get(i), end < 0 ? doc.length() : end);
      String layout = null;
      String example = null;
      Matcher b = BLOCK.matcher(text);
      while (b.find()) {
        if (b.group(1).equals("hex")) {
          example = b.group(2);
        } else if (layout == null) {
          layout = b.group(2);
        }
      }
      out.put(names.get(i), new String[] {layout, example});
    }
    return new LinkedHashMap<>(out);
  }

  /** The whole frame of {@code message} (length prefix included) as lower-case hex bytes. */
  static String hex(RpcMessage message) {
    ByteBuf frame = RpcChannels.toFrame(ByteBufAllocator.DEFAULT, message);
    try {
      StringBuilder out = new StringBuilder();
      while (frame.isReadable()) {
        out.append(out.length() == 0 ? "" : " ").append(String.format("%02x", frame.readByte()));
      }
      return out.toString();
    } finally {
      frame.release();
    }
  }

  private static byte[] unhex(String hex) {
    String[] parts = hex.split(" ");
    byte[] bytes = new byte[parts.length];
    for (int i = 0; i < parts.length; i++) {
      bytes[i] = (byte) Integer.parseInt(parts[i], 16);
    }
    return bytes;
  }

  /** 16 bytes a line, as the document shows them. */
  private static String wrap(String hex) {
    String[] parts = hex.split(" ");
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < parts.length; i++) {
      out.append(parts[i]).append(i % 16 == 15 || i == parts.length - 1 ? "\n" : " ");
    }
    return out.toString();
  }
}
