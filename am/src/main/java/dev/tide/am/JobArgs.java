package dev.tide.am;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.util.StringUtils;

/**
 * How the client writes the job's arguments into {@code tide.job.args}: each argument with
 * commas and backslashes escaped by a backslash (Hadoop's {@link StringUtils#escapeString}),
 * joined by commas. Arguments without commas or backslashes therefore read back unchanged with
 * {@code Configuration.getStrings}; {@link #decode} reads any of them back exactly. An empty
 * argument list is the empty string. Stateless and thread-safe.
 */
public final class JobArgs {
  private JobArgs() {}

  public static String encode(List<String> args) {
    List<String> escaped = new ArrayList<>(args.size());
    for (String arg : args) {
      escaped.add(StringUtils.escapeString(arg));
    }
    return String.join(",", escaped);
  }

  public static List<String> decode(String encoded) {
    List<String> args = new ArrayList<>();
    if (encoded == null || encoded.isEmpty()) {
      return args;
    }
    // split() drops trailing empty fields; count separators ourselves to keep them.
    StringBuilder current = new StringBuilder();
    boolean escaping = false;
    for (int i = 0; i < encoded.length(); i++) {
      char c = encoded.charAt(i);
      if (escaping) {
        current.append(c);
        escaping = false;
      } else if (c == StringUtils.ESCAPE_CHAR) {
        escaping = true;
      } else if (c == StringUtils.COMMA) {
        args.add(current.toString());
        current.setLength(0);
      } else {
        current.append(c);
      }
    }
    args.add(current.toString());
    return args;
  }
}
