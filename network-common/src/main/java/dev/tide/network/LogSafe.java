package dev.tide.network;

/**
 * Makes a value that came from the wire (an application id, a reason, a block list, an
 * exception message quoting peer input) safe to put into a log line: control characters,
 * line and paragraph separators and bidirectional-text controls are escaped ({@code \n},
 * {@code \r}, {@code \t}, {@code \0}, else {@code \}{@code uXXXX}), a backslash is doubled so an
 * escape cannot be forged, and the result is cut to a length with the number of characters left
 * out. So a peer can neither forge log lines nor make one line arbitrarily long. Thread-safe.
 */
public final class LogSafe {
  /** Default cap for identifiers and short reasons. */
  public static final int DEFAULT_MAX_CHARS = 300;

  private LogSafe() {}

  /** {@code value} escaped and cut to {@link #DEFAULT_MAX_CHARS}; "null" for null. */
  public static String text(Object value) {
    return text(value, DEFAULT_MAX_CHARS);
  }

  /** {@code value} escaped and cut to about {@code maxChars} characters; "null" for null. */
  public static String text(Object value, int maxChars) {
    if (value == null) {
      return "null";
    }
    String s = value.toString();
    int limit = Math.min(s.length(), Math.max(0, maxChars));
    StringBuilder out = null;
    int i = 0;
    for (; i < limit; i++) {
      char c = s.charAt(i);
      String escape = escape(c);
      if (escape != null && out == null) {
        out = new StringBuilder(limit + 16).append(s, 0, i);
      }
      if (out != null) {
        if (escape != null) {
          out.append(escape);
        } else {
          out.append(c);
        }
      }
    }
    if (limit == s.length()) {
      return out == null ? s : out.toString();
    }
    if (out == null) {
      out = new StringBuilder(limit + 32).append(s, 0, limit);
    }
    return out.append("...(").append(s.length() - limit).append(" more chars)").toString();
  }

  private static String escape(char c) {
    switch (c) {
      case '\n': return "\\n";
      case '\r': return "\\r";
      case '\t': return "\\t";
      case '\0': return "\\0";
      case '\\': return "\\\\";
      default:
        if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029'
            || (c >= '\u202A' && c <= '\u202E') || (c >= '\u2066' && c <= '\u2069')
            || c == '\u200E' || c == '\u200F') {
          return String.format("\\u%04x", (int) c);
        }
        return null;
    }
  }
}
