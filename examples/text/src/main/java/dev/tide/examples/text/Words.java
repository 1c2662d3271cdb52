package dev.tide.examples.text;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Splits text into words: maximal runs of letters and digits, in lower case. */
public final class Words {
  private Words() {}

  public static List<String> of(String line) {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (Character.isLetterOrDigit(c)) {
        word.append(c);
      } else if (word.length() > 0) {
        words.add(word.toString().toLowerCase(Locale.ROOT));
        word.setLength(0);
      }
    }
    if (word.length() > 0) {
      words.add(word.toString().toLowerCase(Locale.ROOT));
    }
    return words;
  }
}
